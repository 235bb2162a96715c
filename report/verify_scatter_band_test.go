package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The scatter's dashed band is each metric's own tolerance, as the table
// gates it: a P99 TTFT 15% high passes at the default 20%, and a
// throughput under --tol-throughput 0.025 is gated at 2.5%, not 10%.
func TestScatterBandIsEachMetricsTolerance(t *testing.T) {
	p, m, p99, mp99 := 1.02, 1.0, 1.15, 1.0
	tol := verify.DefaultTolerances()
	tol.Throughput = 0.025
	rows := verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p, TTFTP99: &p99, JPerOutTok: &p},
		&verify.Metrics{OutTokPerSec: &m, TTFTP99: &mp99, JPerOutTok: &m}, tol)
	res := &verify.Result{Tolerances: tol, Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}, Rows: rows}}}
	fig, _, err := scatterFigure(res)
	if err != nil || fig == nil {
		t.Fatalf("figure %v, err %v", fig, err)
	}
	for _, want := range []string{verify.MetricThroughput + " ±2.5%", verify.MetricTTFTP99 + " ±20%", verify.MetricEnergy + " not gated"} {
		if !strings.Contains(fig.Caption, want) {
			t.Errorf("caption %q: want %q", fig.Caption, want)
		}
	}
	if strings.Contains(fig.Caption, "dashed: ±10%") {
		t.Errorf("caption %q: one ±10%% band for every metric", fig.Caption)
	}
}
