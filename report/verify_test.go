package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

func TestVerificationSection(t *testing.T) {
	p, m := 1.2, 1.0
	res := &verify.Result{Requests: 10, Slice: "10", StepModel: "profile x", Candidates: []verify.CandidateResult{
		{Rank: 1, Label: "a", Status: verify.StatusOK, Trace: "missing.parquet", SimTrace: "missing.sim.parquet",
			Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())},
		{Rank: 2, Label: "b", Status: verify.StatusHealth, Detail: "not healthy after 60s"},
	}}
	if path := os.Getenv("SERVESIM_VERIFY_JSON"); path != "" { // a real run's verify.json
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, res) != nil {
			t.Fatal(err)
		}
	}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var tables, figs int
	for _, b := range blocks {
		switch b := b.(type) {
		case *Table:
			tables++
			if len(b.Rows) == 0 {
				t.Error("empty table")
			}
		case *Figure:
			figs++
			if !strings.Contains(string(b.SVG), "<svg") {
				t.Errorf("figure %s is not SVG", b.Name)
			}
		}
	}
	if tables != 1 || figs < 1 {
		t.Errorf("%d tables, %d figures", tables, figs)
	}
	t.Logf("%d blocks, %d figures", len(blocks), figs)
	if blocks, _ := (VerificationSection{}).Blocks(nil); blocks != nil {
		t.Error("a section without a result should be left out")
	}
}
