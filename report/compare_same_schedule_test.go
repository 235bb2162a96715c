package report

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// scheduleRun writes and loads a live open-loop replay of one fixed input
// schedule (n Poisson arrivals at rate a second, seed 1) by an engine
// that serves at speed times the arrival rate's pace: a slower engine
// falls behind, so its last tokens, and its window, stretch.
func scheduleRun(t *testing.T, name string, n int, rate, speed float64, slo traces.SLO) *Run {
	t.Helper()
	return scheduleRunWith(t, name, n, rate, speed, slo, nil)
}

// scheduleRunWith is scheduleRun with the replay settings extra recorded
// in its metadata besides (or over) the open arrival and time scale.
func scheduleRunWith(t *testing.T, name string, n int, rate, speed float64, slo traces.SLO, extra map[string]string) *Run {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([]*traces.Request, n)
	at := 0.0
	for i := range rows {
		at += rng.ExpFloat64() / rate
		out := 50 + rng.IntN(100)
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(at*1e9), 100, int32(out)
		r.ScheduledSend, r.ActualSend = r.Arrival, r.Arrival
		done := int64(at/speed*1e9) + int64(out)*2e7
		r.FirstToken, r.LastToken, r.HTTPStatus = r.Arrival+2e8, max(done, r.Arrival+3e8), 200
		rows[i] = r
	}
	meta := traces.Meta{Source: "live"}
	meta.SetChecksum("in.jsonl", "sha256:"+strings.Repeat("ab", 32))
	meta.Set("replay.arrival", "open")
	meta.Set("replay.time_scale", "1")
	for k, v := range extra {
		meta.Set(k, v)
	}
	path := filepath.Join(t.TempDir(), name+".parquet")
	if err := traces.WriteAll(path, meta, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, slo)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Two replays of one open-loop schedule share its arrivals: a 15% drop in
// throughput is the engine's, not the arrivals' luck, and past a 10%
// threshold it is flagged, not hidden inside an interval of arrivals
// drawn afresh.
func TestCompareSameScheduleThroughputDrop(t *testing.T) {
	a := scheduleRun(t, "a", 200, 10, 1, traces.SLO{})
	b := scheduleRun(t, "b", 200, 10, 0.85, traces.SLO{})
	cs, out := throughputChanges(t, a, b, 0.10)
	for _, c := range cs {
		if !(c.Rel < -0.12 && c.Rel > -0.18) {
			t.Fatalf("%s: change %v: want a drop of about 15%%\n%s", c.Metric, c.Rel, out)
		}
		if !c.Regressed || c.Noisy {
			t.Errorf("%s: change %v, interval %v … %v: flagged %v, within noise %v; want flagged\n%s",
				c.Metric, c.Rel, c.Lo, c.Hi, c.Regressed, c.Noisy, out)
		}
	}
	if !strings.Contains(out, "same schedule: no interval") {
		t.Errorf("the table does not say why throughput has no interval:\n%s", out)
	}
}

// An open-loop replay under an in-flight cap holds back the sends that
// find every slot taken: two runs of one input under different caps were
// not sent on one schedule, and their throughput gets an interval.
func TestCompareSameScheduleNeedsEqualInFlightCap(t *testing.T) {
	a := scheduleRunWith(t, "a", 200, 10, 1, traces.SLO{}, map[string]string{"replay.concurrency": "0"})
	b := scheduleRunWith(t, "b", 200, 10, 0.85, traces.SLO{}, map[string]string{"replay.concurrency": "4"})
	cs, out := throughputChanges(t, a, b, 0.10)
	for _, c := range cs {
		if c.noInterval != "" || !known(c.Lo) || !known(c.Hi) {
			t.Errorf("%s: no interval (%q) between an uncapped run and one capped at 4 in flight\n%s", c.Metric, c.noInterval, out)
		}
	}
	// the same cap on both sides is the same schedule still
	a = scheduleRunWith(t, "a", 200, 10, 1, traces.SLO{}, map[string]string{"replay.concurrency": "4"})
	if _, out := throughputChanges(t, a, b, 0.10); !strings.Contains(out, "same schedule: no interval") {
		t.Errorf("two runs capped alike are not taken as one schedule:\n%s", out)
	}
}
