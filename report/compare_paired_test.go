package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// pairedRun writes and loads a live open-loop replay of one fixed input
// of n requests whose TTFTs spread widely from request to request (a
// log-normal draw per request, seed 1), each slowed by the factor slower.
func pairedRun(t *testing.T, name string, n int, slower float64) *Run {
	t.Helper()
	return pairedRunFailing(t, name, n, slower)
}

// pairedRunFailing is pairedRun whose requests at the rows failed (a
// timeout: no token) instead.
func pairedRunFailing(t *testing.T, name string, n int, slower float64, failed ...int) *Run {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([]*traces.Request, n)
	at := 0.0
	for i := range rows {
		at += rng.ExpFloat64() / 10
		ttft := int64(0.2 * math.Exp(rng.NormFloat64()) * slower * 1e9)
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(at*1e9), 100, 50
		r.ScheduledSend, r.ActualSend = r.Arrival, r.Arrival
		r.FirstToken, r.LastToken, r.HTTPStatus = r.Arrival+ttft, r.Arrival+ttft+1e9, 200
		if slices.Contains(failed, i) {
			r.FirstToken, r.LastToken, r.Error = traces.Missing, traces.Missing, "timeout"
		}
		rows[i] = r
	}
	meta := traces.Meta{Source: "live"}
	meta.SetChecksum("in.jsonl", "sha256:"+strings.Repeat("cd", 32))
	meta.Set("replay.arrival", "open")
	meta.Set("replay.concurrency", "0")
	path := filepath.Join(t.TempDir(), name+".parquet")
	if err := traces.WriteAll(path, meta, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Two replays of one schedule send the same requests: a request slow in
// one is slow in the other, so the spread between requests is no chance
// between the runs. B serving every request 15% later is a 15% rise of
// its P99 TTFT in every resample of the pairs, flagged past a 10%
// threshold, not hidden in an interval of each run resampled on its own.
func TestComparePairedLatencyInterval(t *testing.T) {
	a, b := pairedRun(t, "a", 1500, 1), pairedRun(t, "b", 1500, 1.15)
	cs := compareRuns(t, a, b, 0.10)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.10); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Metric != "P99 TTFT" && c.Metric != "P50 TTFT" {
			continue
		}
		if !(c.Lo > 0.14 && c.Hi < 0.16) {
			t.Errorf("%s: change %.3f, interval %.3f … %.3f: want about +15%% on both sides\n%s", c.Metric, c.Rel, c.Lo, c.Hi, out.String())
		}
		if c.Metric == "P99 TTFT" && (!c.Regressed || c.Noisy) {
			t.Errorf("P99 TTFT: flagged %v, within noise %v; want flagged\n%s", c.Regressed, c.Noisy, out.String())
		}
	}
}

// A request that failed in one run only is missing from that run's
// latencies, yet every other request is still one request in both: the
// pairs are resampled over the schedule's requests, each run's statistic
// read from its own successes among them, rather than each run on its
// own as if one timeout made the replays unrelated.
func TestComparePairedLatencyIntervalOneRunFailed(t *testing.T) {
	a := pairedRunFailing(t, "a", 1500, 1, 40)
	b := pairedRunFailing(t, "b", 1500, 1.15, 700, 1200)
	cs := compareRuns(t, a, b, 0.10)
	var out strings.Builder
	if err := WriteComparison(&out, a, b, cs, 0.10); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Metric != "P99 TTFT" && c.Metric != "P50 TTFT" {
			continue
		}
		// a request missing from one side moves the P99 by a rank in some
		// resamples: wider than with every pair, far from −16% … +57%
		if !(c.Lo > 0.10 && c.Lo <= c.Rel && c.Rel <= c.Hi && c.Hi < 0.30) {
			t.Errorf("%s: change %.3f, interval %.3f … %.3f: want a rise on both sides, about +15%%\n%s", c.Metric, c.Rel, c.Lo, c.Hi, out.String())
		}
		if c.Metric == "P99 TTFT" && (!c.Regressed || c.Noisy) {
			t.Errorf("P99 TTFT: flagged %v, within noise %v; want flagged\n%s", c.Regressed, c.Noisy, out.String())
		}
	}
}
