package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The verification section gives the median |error| over candidates per
// metric, as verify prints it and verify.json holds it: the verification
// targets are judged on those medians, not on any one candidate's row.
func TestVerificationShowsMedianErrors(t *testing.T) {
	res, err := verify.LoadResult("../verify/testdata/verify.json")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, b := range blocks {
		if b, ok := b.(*Text); ok {
			text += b.Text + "\n"
		}
	}
	want := "Median |error| over candidates: throughput_out_tok_s 59.0% ttft_mean_s 5463.3% ttft_p50_s 4841.9% ttft_p99_s 9736.5% " +
		"tpot_mean_s 616.8% tpot_p99_s 669.8% e2e_p99_s 2777.5% device_seconds 147.0% usd_per_m_out 147.0%."
	if !strings.Contains(text, want) {
		t.Errorf("want the line\n%s\nin the section's text:\n%s", want, text)
	}
	// no candidate compared: no line
	res, err = verify.LoadResult("../verify/testdata/verify-unmeasured.json")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err = VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b, ok := b.(*Text); ok && strings.Contains(b.Text, "Median |error|") {
			t.Errorf("a result without medians shows %q", b.Text)
		}
	}
}
