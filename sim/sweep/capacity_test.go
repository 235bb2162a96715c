package sweep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

func evaluatorFor(t *testing.T, body string) (*evaluator, *Expansion) {
	t.Helper()
	_, s, err := writeSpec(t, body)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	ev := &evaluator{}
	ev.reset(short(t), s, &ex.Configs[0])
	return ev, ex
}

// The per-request counter decides P99 ≤ limit exactly as the simulator's
// nearest-rank P99 does, at every limit around the observed values.
func TestSLOCounterAgreesWithSimP99(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"`+"\n[slo]\nttft_p99_ms = 1e9\n")
	checkSLOCounterAgrees(t, ev)
}

// Under session waiting a held turn's latencies start at its issue, as
// the simulator's P99s and a live run measure them, not at the trace's
// arrival, which its row keeps.
func TestSLOCounterAgreesWithSimP99UnderSessionWait(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"`+"\n[slo]\nttft_p99_ms = 1e9\n")
	tr := *ev.t
	tr.Reqs = slices.Clone(tr.Reqs)
	withSessions(&tr, 8)
	ev.reset(&tr, ev.spec, ev.cfg)
	ev.wait = &sim.SessionWait{IssueGap: time.Millisecond}
	checkSLOCounterAgrees(t, ev)
}

func checkSLOCounterAgrees(t *testing.T, ev *evaluator) {
	t.Helper()
	p, err := ev.run(context.Background(), 4, false)
	if err != nil || !p.complete() {
		t.Fatal(err, p.oom)
	}
	sum := p.sum
	if sum.Rejected != 0 || sum.TTFT.N != int64(len(ev.t.Reqs)) {
		t.Fatalf("want every request completed: %+v", sum)
	}
	for _, d := range []struct {
		name string
		set  func(*SLO, float64)
		dist sim.Dist
	}{
		{"ttft", func(s *SLO, v float64) { s.TTFTP99Ms = v }, sum.TTFT},
		{"tpot", func(s *SLO, v float64) { s.TPOTP99Ms = v }, sum.TPOT},
		{"e2e", func(s *SLO, v float64) { s.E2EP99Ms = v }, sum.E2E},
	} {
		for _, f := range []float64{0.5, 0.99, 0.999, 1.001, 1.01, 2} {
			limit := d.dist.P99 * 1e3 * f
			var slo SLO
			d.set(&slo, limit)
			ev.spec.SLO = slo
			clear(ev.cache)
			q, err := ev.run(context.Background(), 4, false)
			if err != nil {
				t.Fatal(err)
			}
			// ms → ns rounding: compare with the limit as the counter sees it
			want := float64(msToNs(limit))/1e9 >= d.dist.P99
			if q.ok != want {
				t.Errorf("%s limit %.6g ms (P99 %.6g ms): ok = %v, want %v", d.name, limit, d.dist.P99*1e3, q.ok, want)
			}
			// the aborting run reaches the same verdict
			clear(ev.cache)
			a, _ := ev.run(context.Background(), 4, true)
			if a.ok != q.ok {
				t.Errorf("%s limit %.6g ms: aborting run ok = %v, full run %v", d.name, limit, a.ok, q.ok)
			}
		}
	}
}

func TestCapacitySearch(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"`+sloTOML)
	best, note, err := ev.capacity(context.Background())
	if err != nil || best == nil || note != "" {
		t.Fatalf("best %v note %q err %v", best, note, err)
	}
	if !best.ok || !best.complete() {
		t.Fatalf("capacity probe: ok %v complete %v", best.ok, best.complete())
	}
	c := best.scale
	// The bracket closed within the tolerance: some scale ≤ c·(1+tol) failed.
	clear(ev.cache)
	hi, err := ev.run(context.Background(), c*(1+ev.spec.Search.Tolerance)*1.0001, false)
	if err != nil {
		t.Fatal(err)
	}
	if hi.ok {
		// allowed only if non-monotone; at least a clearly higher load fails
		far, _ := ev.run(context.Background(), c*1.5, false)
		if far.ok {
			t.Errorf("capacity %g: the SLO still holds at 1.5× it", c)
		}
	}
	if ev.probes > ev.spec.Search.MaxProbes+2 {
		t.Errorf("%d probes", ev.probes)
	}
}

func TestCapacityInfeasibleByRejections(t *testing.T) {
	// Requests longer than max_model_len never run; with goodput_min = 1
	// one rejection breaks the SLO everywhere.
	ev, _ := evaluatorFor(t, `base = "base.toml"
[batch]
chunked_prefill = false
max_num_batched_tokens = 300
max_num_seqs = 16
[device]
max_model_len = 300
[slo]
goodput_min = 1.0
`)
	_, _, err := ev.capacity(context.Background())
	var h errHopeless
	if !asHopeless(err, &h) || h.rejected == 0 {
		t.Fatalf("err = %v, want errHopeless", err)
	}
	if ev.probes != 1 {
		t.Errorf("%d probes, want 1: rejections do not depend on the load", ev.probes)
	}
}

func asHopeless(err error, h *errHopeless) bool {
	e, ok := err.(errHopeless)
	*h = e
	return ok
}

func TestScaledReaderScales(t *testing.T) {
	tr := short(t)
	var r scaledReader
	r.reset(tr, 4)
	i := 0
	for r.Next() {
		want := int64(math.Round(float64(tr.Reqs[i].Arrival) / 4))
		if got := r.At().Arrival; got != want {
			t.Fatalf("row %d: arrival %d, want %d", i, got, want)
		}
		i++
	}
	if i != len(tr.Reqs) {
		t.Fatalf("%d rows, want %d", i, len(tr.Reqs))
	}
}

func TestCurveScalesReuseTheGrid(t *testing.T) {
	ev := &evaluator{spec: &Spec{Search: DefaultSearch()}}
	got := ev.curveScales(6.3)
	want := []float64{4, 6.3, 8, 16, 32}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
	if got := ev.curveScales(4); len(got) != 5 || got[0] != 2 || got[1] != 4 || got[4] != 32 {
		t.Errorf("curveScales(4) = %v, want [2 4 8 16 32]", got)
	}
}

// A tolerance finer than float64 resolves ends the bisection once the
// bracket's ends are adjacent numbers, instead of re-probing the lower end
// from the cache forever.
func TestCapacitySearchEndsAtFloatResolution(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"`+sloTOML+"\n[search]\ntolerance = 1e-18\nmax_probes = 400\n")
	type result struct {
		best *probe
		err  error
	}
	done := make(chan result, 1)
	go func() {
		best, _, err := ev.capacity(context.Background())
		done <- result{best, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.best == nil || !r.best.ok {
			t.Fatalf("best %v err %v", r.best, r.err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("capacity search still running after 60 s")
	}
}

// A scale so small that the trace's arrivals leave the simulator's int64
// clock is reported as such, not as a negative arrival of the overflowed
// number.
func TestScaleBeyondClockIsNamed(t *testing.T) {
	ev, ex := evaluatorFor(t, `base = "base.toml"`+"\n[sweep]\nrate_scale = [1e-9]\n[slo]\nttft_p99_ms = 1000\n")
	row := configRow(&ex.Configs[0])
	if err := ev.evaluate(context.Background(), &row); err != nil {
		t.Fatal(err)
	}
	if row.Outcome != OutcomeError || !strings.Contains(row.Note, "arrival-rate scale 1e-09") || !strings.Contains(row.Note, "beyond the simulator's clock") {
		t.Fatalf("outcome %s, note %q; want an error naming the scale and the clock", row.Outcome, row.Note)
	}
}

// A search that runs out of search.max_probes before its bracket closes
// says so on its row: the capacity it reports is a lower bound.
func TestCapacitySearchCutByMaxProbesIsNoted(t *testing.T) {
	ev, ex := evaluatorFor(t, `base = "base.toml"`+sloTOML+"\n[search]\nmax_probes = 2\n")
	row := configRow(&ex.Configs[0])
	if err := ev.evaluate(context.Background(), &row); err != nil {
		t.Fatal(err)
	}
	if row.Outcome != OutcomeOK || !strings.Contains(row.Note, "search.max_probes = 2 ran out") {
		t.Fatalf("outcome %s, note %q; want ok with a note that max_probes cut the search", row.Outcome, row.Note)
	}
}

// A TPOT limit holds when no request has the two output tokens TPOT needs
// (max_new_tokens = 1): nothing breaks it, as the simulator's TPOT
// distribution is empty.
func TestTPOTLimitWithoutTPOTRequestsHolds(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"`+"\n[model]\nmax_new_tokens = 1\n[slo]\ntpot_p99_ms = 40\n")
	if ev.nTPOT != 0 {
		t.Fatalf("%d requests with ≥ 2 output tokens, want 0", ev.nTPOT)
	}
	for _, abort := range []bool{false, true} {
		clear(ev.cache)
		p, err := ev.run(context.Background(), 0.25, abort)
		if err != nil {
			t.Fatal(err)
		}
		if !p.ok || !p.complete() || p.sum.TPOT.N != 0 {
			t.Errorf("abort %v: ok %v complete %v, want the SLO to hold with no TPOT measured", abort, p.ok, p.complete())
		}
	}
}

// rowsReader streams requests from memory.
type rowsReader struct {
	reqs []traces.Request
	meta traces.Meta
	i    int
}

func (r *rowsReader) Meta() traces.Meta   { return r.meta }
func (r *rowsReader) Next() bool          { r.i++; return r.i <= len(r.reqs) }
func (r *rowsReader) At() *traces.Request { return &r.reqs[r.i-1] }
func (r *rowsReader) Err() error          { return nil }
func (r *rowsReader) Close() error        { return nil }

// A row the source trace marks failed is rejected by the simulator, so a
// trace that differs only there gives other results: its checksum, which
// merge compares, differs too.
func TestTraceChecksumCoversSourceFailed(t *testing.T) {
	rows := func(failed bool) []traces.Request {
		var out []traces.Request
		for i := range 3 {
			var r traces.Request
			r.Reset()
			r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 100, 10
			r.SourceFailed = failed && i == 1
			out = append(out, r)
		}
		return out
	}
	a, err := LoadTrace("a", &rowsReader{reqs: rows(false)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadTrace("b", &rowsReader{reqs: rows(true)})
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256 == b.SHA256 {
		t.Errorf("a trace with a failed source row has the checksum of one without: %s", a.SHA256)
	}
}

// The tokens one prefix hash covers (the trace's block_size) decide which
// KV blocks requests share, so they are part of the checksum.
func TestTraceChecksumCoversHashBlockSize(t *testing.T) {
	var r traces.Request
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens, r.PrefixHashes = "0", 100, 10, []uint64{1, 2}
	sums := map[string]int{}
	for _, bs := range []int{0, 16, 512} {
		rd := &rowsReader{reqs: []traces.Request{r}, meta: traces.Meta{BlockSize: bs}}
		tr, err := LoadTrace("t", rd)
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := sums[tr.SHA256]; dup {
			t.Errorf("block_size %d and %d give the same checksum", prev, bs)
		}
		sums[tr.SHA256] = bs
	}
}

// A static batch that runs out of KV memory at a high load is no reason to
// call the config infeasible: the requests that OOM left unserved are not
// rejections, and a lower load (smaller batches) fits. The search brackets
// the capacity below the load that ran out of memory.
func TestOOMIsNotInfeasible(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"
[model]
max_new_tokens = 4096
[device]
max_model_len = 32768
[batch]
strategy = "fixed"
batch_size = 4096
max_wait_ms = 50
[slo]
ttft_p99_ms = 1e9
`)
	for _, abort := range []bool{false, true} {
		clear(ev.cache)
		hi, err := ev.run(context.Background(), ev.spec.Search.MaxScale, abort)
		if err != nil {
			t.Fatal(err)
		}
		if !abort && hi.oom == "" {
			t.Fatalf("no OOM at scale %g: the test needs one", ev.spec.Search.MaxScale)
		}
		if hi.ok || hi.hopeless != 0 {
			t.Errorf("abort %v: the OOM probe is ok %v and counts %d requests as never runnable", abort, hi.ok, hi.hopeless)
		}
	}
	clear(ev.cache)
	ev.probes = 0
	best, _, err := ev.capacity(context.Background())
	if err != nil || best == nil || !best.ok {
		t.Fatalf("capacity: best %v, err %v; want a scale that meets the SLO", best, err)
	}
	if best.scale >= ev.spec.Search.MaxScale {
		t.Errorf("capacity %g at the scale that ran out of memory", best.scale)
	}
}

// A row the source trace marks failed has no lengths to serve: the
// simulator rejects it under every config. It says nothing about the
// config, so it is not in the SLO's population, as a warm-up row is not:
// 5 such rows among 300 (over the 3 a P99 lets through) must not make
// every config infeasible.
func TestSourceFailedRowsAreNotTheConfigs(t *testing.T) {
	reqs := append([]traces.Request(nil), short(t).Reqs...)
	failed := 0
	for i := range reqs {
		if r := &reqs[i]; !r.Warmup && i%70 == 5 {
			r.SourceFailed = true
			failed++
		}
	}
	if failed != 5 {
		t.Fatalf("%d failed rows, want 5", failed)
	}
	tr, err := LoadTrace("head300-failed", &rowsReader{reqs: reqs})
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := evaluatorFor(t, `base = "base.toml"`+"\n[slo]\nttft_p99_ms = 1e9\ngoodput_min = 1.0\n")
	ev.reset(tr, ev.spec, ev.cfg)
	p, err := ev.run(context.Background(), 1, false)
	if err != nil || !p.complete() {
		t.Fatal(err, p.oom)
	}
	if p.sum.Rejected != int64(failed) {
		t.Fatalf("%d rejected, want the %d failed rows", p.sum.Rejected, failed)
	}
	if !p.ok || p.hopeless != 0 {
		t.Errorf("ok %v, hopeless %d: the source's failures count against the config", p.ok, p.hopeless)
	}
	if want := int64(len(tr.Reqs) - failed); p.nAll != want || p.good != want {
		t.Errorf("population %d, good %d; want %d each (the rows that can be served)", p.nAll, p.good, want)
	}
	if _, _, err := ev.capacity(context.Background()); err != nil {
		t.Errorf("capacity: %v", err)
	}
}

// The infeasibility note gives the number of rejected requests as the
// probe saw it: a probe that stopped early saw only some of them.
func TestHopelessNoteCount(t *testing.T) {
	ev, _ := evaluatorFor(t, `base = "base.toml"
[batch]
chunked_prefill = false
max_num_batched_tokens = 300
max_num_seqs = 16
[device]
max_model_len = 300
[slo]
goodput_min = 1.0
`)
	_, _, err := ev.capacity(context.Background())
	var h errHopeless
	if !asHopeless(err, &h) {
		t.Fatalf("err = %v, want errHopeless", err)
	}
	clear(ev.cache)
	full, err2 := ev.run(context.Background(), ev.spec.Search.StartScale, false)
	if err2 != nil || !full.complete() {
		t.Fatal(err2)
	}
	if all := fmt.Sprintf("%d requests", full.sum.Rejected); !strings.HasPrefix(err.Error(), all) && !strings.HasPrefix(err.Error(), "at least ") {
		t.Errorf("note %q; the trace has %d rejected requests", err, full.sum.Rejected)
	}
}
