package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/verify"
)

// verify's table and the report's verification table write each value
// as the rest of the report does: a latency as numfmt.Secs, a cost as
// numfmt.USD, and an error too large for digits in exponent form; the
// same cell reads the same in both.
func TestVerificationNumbersReadAsVerifyPrintsThem(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	pred := &verify.Metrics{OutTokPerSec: f(1234.567), TTFTMean: f(0.04213), TTFTP50: f(0.00085), TTFTP99: f(1e11),
		TPOTMean: f(0.0123), TPOTP99: f(0.0456), E2EP99: f(507.2), DeviceSeconds: f(123.4), USDPerMOut: f(0.4567), JPerOutTok: f(1.234)}
	meas := &verify.Metrics{OutTokPerSec: f(1100), TTFTMean: f(0.05), TTFTP50: f(0.001), TTFTP99: f(0.001),
		TPOTMean: f(0.011), TPOTP99: f(0.05), E2EP99: f(480), DeviceSeconds: f(110), USDPerMOut: f(0.5), JPerOutTok: f(1.3)}
	res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK},
		Rows: verify.CompareMetrics(pred, meas, verify.DefaultTolerances())}}}
	res.MedianAbsError = verify.MedianAbsErrors(res.Candidates)
	var b bytes.Buffer
	res.WriteTable(&b)
	lines := strings.Split(b.String(), "\n")
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{ // predicted, measured
		verify.MetricTTFTMean: {"42.1ms", "50.0ms"},
		verify.MetricTTFTP50:  {"850µs", "1.0ms"},
		verify.MetricE2EP99:   {"8m27s", "8m0s"},
		verify.MetricCost:     {numfmt.USD(0.4567), numfmt.USD(0.5)},
	}
	rows := 0
	for _, bl := range blocks {
		tab, ok := bl.(*Table)
		if !ok {
			continue
		}
		for _, row := range tab.Rows {
			label, p, m, e := row[2], row[3], row[4], row[5]
			if w, ok := want[strings.Fields(label)[0]]; ok && (p != w[0] || m != w[1]) {
				t.Errorf("report %s: predicted %s, measured %s; want %s, %s", label, p, m, w[0], w[1])
			}
			if strings.HasPrefix(label, "ttft_p99") && e != "+1e+16%" {
				t.Errorf("report %s: error %s, want +1e+16%%", label, e)
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "median") || !strings.Contains(l, " "+label+" ") {
					continue
				}
				rows++
				for _, cell := range []string{p, m, e} {
					if !strings.Contains(l, " "+cell+" ") {
						t.Errorf("verify's line %q lacks the report's %s cell %q", l, label, cell)
					}
				}
			}
		}
	}
	if rows != len(verify.MetricNames) {
		t.Errorf("%d of %d metric lines matched:\n%s", rows, len(verify.MetricNames), b.String())
	}
	if !strings.Contains(b.String(), "ttft_p99_s 1e+16%") {
		t.Errorf("median |error| line:\n%s\nwant ttft_p99_s 1e+16%%", b.String())
	}
}
