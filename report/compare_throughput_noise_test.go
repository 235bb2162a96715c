package report

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// poissonRun writes and loads a live trace of n requests arriving at rate
// a second (seeded), each answered in a time its output length sets.
func poissonRun(t *testing.T, name string, seed uint64, n int, rate float64) *Run {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	rows := make([]*traces.Request, n)
	at := 0.0
	for i := range rows {
		at += rng.ExpFloat64() / rate
		out := 50 + rng.IntN(100)
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(at*1e9), 100, int32(out)
		r.ScheduledSend, r.ActualSend = r.Arrival, r.Arrival
		r.FirstToken, r.LastToken, r.HTTPStatus = r.Arrival+2e8, r.Arrival+int64(out)*2e7, 200
		rows[i] = r
	}
	path := filepath.Join(t.TempDir(), name+".parquet")
	if err := traces.WriteAll(path, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// throughputChanges are the two throughput lines of a comparison at
// threshold, and the comparison as printed.
func throughputChanges(t *testing.T, a, b *Run, threshold float64) ([]Change, string) {
	t.Helper()
	cs := compareRuns(t, a, b, threshold)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, threshold); err != nil {
		t.Fatal(err)
	}
	var got []Change
	for _, c := range cs {
		if strings.HasPrefix(c.Metric, "throughput") {
			got = append(got, c)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d throughput lines, want 2:\n%s", len(got), out.String())
	}
	return got, out.String()
}

// Two live runs of one workload differ in throughput by chance: the
// change gets an interval, and a drop within it is within noise even at
// a threshold of 0; a drop of a fifth is beyond it and flagged.
func TestCompareThroughputInterval(t *testing.T) {
	const n = 2000
	a, b := poissonRun(t, "a", 1, n, 10), poissonRun(t, "b", 2, n, 10)
	if a.Metrics.ReqPerSec < b.Metrics.ReqPerSec { // b is the slower
		a, b = b, a
	}
	cs, out := throughputChanges(t, a, b, 0)
	for _, c := range cs {
		if !known(c.Lo) || c.Lo > c.Rel || c.Hi < c.Rel {
			t.Errorf("%s: change %v, interval %v … %v: want one around the change\n%s", c.Metric, c.Rel, c.Lo, c.Hi, out)
		}
		if c.Metric == "throughput (req/s)" && (c.Regressed || !c.Noisy) {
			t.Errorf("%s: change %v of two runs of one workload: flagged %v, within noise %v; want within noise\n%s",
				c.Metric, c.Rel, c.Regressed, c.Noisy, out)
		}
	}
	t.Logf("one workload twice:\n%s", out)
	slow := poissonRun(t, "slow", 3, n, 8)
	cs, out = throughputChanges(t, a, slow, 0.1)
	for _, c := range cs {
		if !c.Regressed || c.Noisy || !(c.Hi < 0) {
			t.Errorf("%s: change %v, interval %v … %v of a fifth slower arrivals: want it flagged\n%s", c.Metric, c.Rel, c.Lo, c.Hi, out)
		}
	}
	if !strings.Contains(out, "REGRESSION") {
		t.Errorf("no regression printed:\n%s", out)
	}
}
