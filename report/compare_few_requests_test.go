package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lognormalE2ERun is a live run of n requests whose E2E latencies are
// lognormal (median 2 s), drawn from seed, in arrival order.
func lognormalE2ERun(name string, n int, seed uint64) *Run {
	rng := rand.New(rand.NewPCG(seed, seed))
	e2e := make([]float64, n)
	for i := range e2e {
		e2e[i] = 2 * math.Exp(0.8*rng.NormFloat64())
	}
	sorted := slices.Sorted(slices.Values(e2e))
	r := &Run{Name: name, Kind: "live", Lat: &Latencies{E2E: sorted, ByArrival: &Latencies{E2E: e2e}}}
	r.Metrics = Metrics{Requests: int64(n), Completed: int64(n), E2EP99: Quantile(sorted, 0.99)}
	return r
}

// e2eP99Change is the P99 E2E line of a and b compared at 10%, and the
// comparison as printed.
func e2eP99Change(t *testing.T, a, b *Run) (Change, string) {
	t.Helper()
	cs := compareRuns(t, a, b, 0.10)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.10); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Metric == "P99 E2E" {
			return c, out.String()
		}
	}
	t.Fatal("no P99 E2E line")
	return Change{}, ""
}

// The P99 of 200 live requests is one of their two slowest: two runs of
// one engine differ there by tens of percent, beyond any usual threshold.
// Its change is judged by the P95's interval instead, whose tail the runs
// hold; with too few requests even for a median it is never flagged.
func TestCompareFewRequestsP99(t *testing.T) {
	for _, n := range []int{200, 15} {
		a, b := lognormalE2ERun("a", n, 1), lognormalE2ERun("b", n, 2)
		if a.Metrics.E2EP99 > b.Metrics.E2EP99 { // b is the slower
			a, b = b, a
		}
		c, out := e2eP99Change(t, a, b)
		if c.Rel <= 0.10 {
			t.Fatalf("%d requests: P99 E2E rose by %v, want a seed whose rise passes the threshold", n, c.Rel)
		}
		if c.Regressed {
			t.Errorf("%d requests a run: P99 E2E of one engine flagged\n%s", n, out)
		}
		want := "of P95"
		if n < 20 {
			want = tooFewRequests
		}
		if !strings.Contains(out, want) {
			t.Errorf("%d requests a run: the table does not say %q:\n%s", n, want, out)
		}
	}
}
