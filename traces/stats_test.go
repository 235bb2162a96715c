package traces

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestStatsObserved(t *testing.T) {
	rows := sampleRequests()
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	// b is warm-up; a and c remain. c is observed and failed.
	if s.Requests != 2 || s.Warmup != 1 || s.SourceFailed != 1 || s.Observed != 1 || s.Failed != 1 || s.Succeeded != 0 {
		t.Errorf("stats = %+v", s)
	}
	if s.ITL != nil {
		t.Errorf("ITL %+v from a warm-up and a failure", s.ITL)
	}
	rows[1].Warmup = false
	s, _ = ComputeStats(&sliceReader{rows: rows}, SLO{})
	if s.Succeeded != 1 || s.TTFT == nil || math.Abs(s.TTFT.P50-100) > 0.5 || math.Abs(s.E2E.Max-200) > 1e-9 || math.Abs(s.TPOT.Mean-50) > 1e-9 {
		t.Errorf("latencies: ttft %+v e2e %+v tpot %+v", s.TTFT, s.E2E, s.TPOT)
	}
	// b's three tokens came 50 ms apart; c failed and has none.
	if s.ITL == nil || s.ITL.Count != 2 || math.Abs(s.ITL.Mean-50) > 1e-9 || math.Abs(s.ITL.P99-50) > 0.25 {
		t.Errorf("ITL %+v, want two gaps of 50 ms", s.ITL)
	}
	if s.ScheduleLag == nil || s.ScheduleLag.Count != 1 || math.Abs(s.ScheduleLag.Max-0.0001) > 1e-12 {
		t.Errorf("schedule lag %+v, want one of 100 ns", s.ScheduleLag)
	}
	if s.MeanRate == nil {
		t.Fatal("no mean rate")
	}
	if s.SpanSeconds != 2 || *s.MeanRate != 1 { // two gaps over 2 s
		t.Errorf("span %v rate %v", s.SpanSeconds, *s.MeanRate)
	}
	var buf bytes.Buffer
	if err := s.WriteTable(&buf); err != nil || !strings.Contains(buf.String(), "TTFT ms") || !strings.Contains(buf.String(), "ITL ms") || !strings.Contains(buf.String(), "schedule lag ms") {
		t.Errorf("table:\n%s", buf.String())
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"ttft_ms":{"count":1`) {
		t.Errorf("json = %s", b)
	}
}

func TestLenPercentilesExact(t *testing.T) {
	var h countHist
	for v := int32(1); v <= 1000; v++ {
		h.add(v)
	}
	h.add(5_000_000)
	d := h.dist()
	if d.P50 != 501 || d.P90 != 901 || d.P99 != 991 || d.Max != 5_000_000 {
		t.Errorf("dist = %+v", d)
	}
	var big countHist
	for v := int32(100_000); v < 100_100; v++ {
		big.add(v)
	}
	if d := big.dist(); d.P50 != 100_049 || d.P99 != 100_098 {
		t.Errorf("large values: %+v", d)
	}
}

func TestLogSketchAccuracy(t *testing.T) {
	var s LatencySketch
	for v := 1; v <= 100_000; v++ {
		s.Add(float64(v) * 1000)
	}
	for _, q := range []float64{0.5, 0.9, 0.99} {
		want := q * 100_000 * 1000
		if got := s.quantile(q); math.Abs(got-want)/want > 0.006 {
			t.Errorf("q%.2f = %.0f, want %.0f ± 0.5%%", q, got, want)
		}
	}
}

// Goodput counts the observed successes within the SLO over the window from
// the first send to the last token.
func TestStatsGoodput(t *testing.T) {
	rows := sampleRequests()
	rows[1].Warmup = false // b: sent at 1.5 s, TTFT 100 ms, done at 1.7 s; c failed
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{TTFT: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Goodput; g == nil || g.Met != 1 || g.Of != 2 || g.PerSec == nil || math.Abs(*g.PerSec-5) > 1e-9 || g.SLO != "ttft=100ms" {
		t.Errorf("goodput %+v, want 1 of 2 within ttft=100ms, 5 req/s over 0.2 s", g)
	}
	var buf bytes.Buffer
	if s.WriteTable(&buf); !strings.Contains(buf.String(), "5.0000 req/s: 1 of 2 requests within ttft=100ms") {
		t.Errorf("table:\n%s", buf.String())
	}
	if s, _ = ComputeStats(&sliceReader{rows: rows}, SLO{TTFT: 99 * time.Millisecond}); s.Goodput == nil || s.Goodput.Met != 0 {
		t.Errorf("ttft=99ms: goodput %+v, want none met", s.Goodput)
	}
	if s, _ = ComputeStats(&sliceReader{rows: rows}, SLO{}); s.Goodput != nil {
		t.Errorf("no SLO: goodput %+v", s.Goodput)
	}
}

// The sketch's percentiles lie within the values seen: a bucket's midpoint
// can fall below the smallest value, and every value below 1 ns (a
// schedule lag can be negative) counts as 0, above the largest.
func TestLogSketchPercentilesWithinMinMax(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []float64
	}{
		{"equal values at a bucket's top", []float64{math.Pow(sketchGamma, 695) * 0.9999, math.Pow(sketchGamma, 695) * 0.9999}},
		{"values near a bucket's top", []float64{2e6 * 0.99999, 2e6 * 0.99998, 2e6}},
		{"all negative", []float64{-5e6, -3e6, -1e6}},
		{"negative and zero", []float64{-2e6, -1e6, 0}},
	} {
		var s LatencySketch
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range tc.vals {
			s.Add(v)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		d := s.Dist()
		for _, p := range []float64{d.P50, d.P90, d.P99} {
			if p < lo/1e6 || p > hi/1e6 {
				t.Errorf("%s: percentiles %v %v %v outside [%v, %v] ms", tc.name, d.P50, d.P90, d.P99, lo/1e6, hi/1e6)
				break
			}
		}
	}
}

// An input trace has no measured request: its goodput is not measured,
// empty (null, "—"), never a zero of zero.
func TestStatsGoodputOfAnInputTraceIsEmpty(t *testing.T) {
	var rows []*Request
	for i := range 2 {
		r := &Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = string(rune('a'+i)), int64(i)*1e9, 10, 5
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{TTFT: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(s.Goodput)
	if !strings.Contains(string(j), `"per_s":null`) {
		t.Errorf("goodput %s, want per_s null", j)
	}
	var buf bytes.Buffer
	s.WriteTable(&buf)
	if !strings.Contains(buf.String(), "goodput") || !strings.Contains(buf.String(), "— (no measured requests") || strings.Contains(buf.String(), "0.0000 req/s") {
		t.Errorf("table:\n%s", buf.String())
	}
}

// A recording whose every request failed has no window to rate goodput
// over: unmeasured (null, "—"), as `record` prints it, not 0 req/s.
func TestStatsGoodputOfARunWithNoSuccessIsEmpty(t *testing.T) {
	var rows []*Request
	for i := range 2 {
		r := &Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = string(rune('a'+i)), int64(i)*1e9, 10, 5
		r.ScheduledSend, r.ActualSend, r.HTTPStatus, r.Error = r.Arrival, r.Arrival, 503, "http 503"
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{TTFT: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(s.Goodput)
	if !strings.Contains(string(j), `"per_s":null`) || !strings.Contains(string(j), `"of":2`) {
		t.Errorf("goodput %s, want per_s null of 2", j)
	}
	var buf bytes.Buffer
	s.WriteTable(&buf)
	if !strings.Contains(buf.String(), "— (no request succeeded): 0 of 2 requests") || strings.Contains(buf.String(), "req/s:") {
		t.Errorf("table:\n%s", buf.String())
	}
}

// With one request there is no gap between arrivals, and with two only
// one: the mean rate (and the CV) are undefined. They print as "—" and are
// null in JSON, as an unmeasured goodput is, never as a rate of 0.
func TestStatsRateUndefinedWithoutGaps(t *testing.T) {
	at := func(ns ...int64) []*Request {
		var rows []*Request
		for _, a := range ns {
			rows = append(rows, &Request{Arrival: a, PromptTokens: 10, OutputTokens: 5})
		}
		return rows
	}
	for _, c := range []struct {
		name           string
		rows           []*Request
		rate, cv       bool // defined
		rateRow, cvRow string
	}{
		{"one request", at(1e9), false, false, "mean rate         — (span 0)", "inter-arrival CV  — (needs 3 arrivals over a span > 0)"},
		{"one instant", at(1e9, 1e9, 1e9), false, false, "mean rate         — (span 0)", "inter-arrival CV  — (needs 3 arrivals over a span > 0)"},
		{"one gap", at(0, 1e9), true, false, "mean rate         1.0000 req/s", "inter-arrival CV  — (needs 3 arrivals over a span > 0)"},
		{"two gaps", at(0, 1e9, 3e9), true, true, "mean rate         0.6667 req/s", "inter-arrival CV  0.471"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ComputeStats(&sliceReader{rows: c.rows}, SLO{})
			if err != nil {
				t.Fatal(err)
			}
			if (s.MeanRate != nil) != c.rate || (s.InterArrivalCV != nil) != c.cv {
				t.Errorf("rate %v, CV %v: want defined %v, %v", s.MeanRate, s.InterArrivalCV, c.rate, c.cv)
			}
			var buf bytes.Buffer
			if err := s.WriteTable(&buf); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{c.rateRow, c.cvRow} {
				if !strings.Contains(buf.String(), want+"\n") {
					t.Errorf("table lacks %q:\n%s", want, buf.String())
				}
			}
			b, _ := json.Marshal(s)
			var back map[string]any
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			for key, defined := range map[string]bool{"mean_rate_per_s": c.rate, "interarrival_cv": c.cv} {
				v, ok := back[key]
				if !ok || (v != nil) != defined {
					t.Errorf("json %s = %v (present %v), want defined %v: %s", key, v, ok, defined, b)
				}
			}
		})
	}
}

// A trace without prefix hashes (Azure, BurstGPT) has no reuse to
// measure: its ratio is null in JSON, as the table leaves it out, not a
// measured 0.
func TestStatsReuseRatioNullWithoutHashes(t *testing.T) {
	r := &Request{}
	r.Reset()
	r.PromptTokens, r.OutputTokens = 10, 2
	s, err := ComputeStats(&sliceReader{rows: []*Request{r}}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s)
	if !bytes.Contains(js, []byte(`"prefix_reuse_ratio":null`)) {
		t.Errorf("JSON %s, want prefix_reuse_ratio null", js)
	}
	r.PrefixHashes = []uint64{7, 7}
	s, _ = ComputeStats(&sliceReader{rows: []*Request{r}}, SLO{})
	if s.PrefixReuseRatio == nil || *s.PrefixReuseRatio != 0.5 {
		t.Errorf("reuse ratio of hashes 7, 7 = %v, want 0.5", s.PrefixReuseRatio)
	}
}

// With no measured row (an empty trace, or one of warm-up rows only) there
// are no lengths: their distributions are null in JSON and "—" in the
// table, not a mean and percentiles of 0.
func TestStatsNoRowsHaveNoLengths(t *testing.T) {
	r := &Request{}
	r.Reset()
	r.PromptTokens, r.OutputTokens, r.Warmup = 10, 2, true
	s, err := ComputeStats(&sliceReader{rows: []*Request{r}}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(s)
	for _, w := range []string{`"input_tokens":null`, `"output_tokens":null`} {
		if !bytes.Contains(js, []byte(w)) {
			t.Errorf("JSON %s, want %s", js, w)
		}
	}
	var tab bytes.Buffer
	s.WriteTable(&tab)
	if !strings.Contains(tab.String(), "input tokens        — (no rows)\n") {
		t.Errorf("table:\n%s\nwant input tokens — (no rows)", tab.String())
	}
}

// A row that failed in the run that recorded it served no output: its
// output tokens (a proxy's partial count, often 0) are left out of the
// output lengths, its prompt kept in the input lengths.
func TestStatsOutputLengthsLeaveOutLiveFailures(t *testing.T) {
	var rows []*Request
	for i, out := range []int32{100, 100, 0, 0, 0} {
		r := &Request{}
		r.Reset()
		r.Arrival, r.PromptTokens, r.OutputTokens = int64(i)*1e9, 50, out
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = r.Arrival, r.Arrival, 200
		if out == 0 {
			r.HTTPStatus, r.Error = 500, "HTTP 500"
		} else {
			r.FirstToken, r.LastToken = r.Arrival+1e8, r.Arrival+2e8
		}
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Output == nil || s.Output.P50 != 100 || s.Output.Mean != 100 {
		t.Errorf("output tokens %+v, want every percentile 100 (the three failures left out)", s.Output)
	}
	if s.Input == nil || s.Input.Mean != 50 || s.Failed != 3 {
		t.Errorf("input tokens %+v, failed %d: want the prompts of all five, three failed", s.Input, s.Failed)
	}
}

func TestStatsTableSaysWhyNoOutputLengths(t *testing.T) {
	r := &Request{}
	r.Reset()
	r.PromptTokens, r.OutputTokens, r.HTTPStatus, r.Error = 10, 0, 500, "HTTP 500"
	s, err := ComputeStats(&sliceReader{rows: []*Request{r}}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	var tab bytes.Buffer
	s.WriteTable(&tab)
	if !regexp.MustCompile(`output tokens +— \(every row failed\)\n`).MatchString(tab.String()) {
		t.Errorf("table:\n%s\nwant output tokens — (every row failed)", tab.String())
	}
}

// A row the source trace marks failed is never served (the simulator
// rejects it, a live replay does not send it): its lengths (BurstGPT's 0
// response tokens, a refused proxy row's 0 prompt) are left out of the
// length figures, and it is counted as source failed.
func TestStatsLengthsLeaveOutSourceFailedRows(t *testing.T) {
	var rows []*Request
	for i, lens := range [][2]int32{{50, 100}, {50, 100}, {70, 0}, {0, 0}} {
		r := &Request{}
		r.Reset()
		r.Arrival, r.PromptTokens, r.OutputTokens = int64(i)*1e9, lens[0], lens[1]
		r.SourceFailed = i >= 2
		if lens[0] == 0 {
			r.Error = "proxy: request body over 256 MiB" // refused before the upstream
		}
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if s.SourceFailed != 2 {
		t.Errorf("source failed %d; want 2", s.SourceFailed)
	}
	want := LenDist{Mean: 50, P50: 50, P90: 50, P99: 50, Max: 50}
	if s.Input == nil || *s.Input != want {
		t.Errorf("input lengths %+v; want %+v (the source-failed rows left out)", s.Input, want)
	}
	want = LenDist{Mean: 100, P50: 100, P90: 100, P99: 100, Max: 100}
	if s.Output == nil || *s.Output != want {
		t.Errorf("output lengths %+v; want %+v (the source-failed rows left out)", s.Output, want)
	}
}

// A trace whose every measured row the source marks failed has rows, but
// no served length: the table says why, not that there are no rows.
func TestStatsTableSaysEveryRowFailedInTheSource(t *testing.T) {
	var rows []*Request
	for i := range 3 {
		r := &Request{}
		r.Reset()
		r.Arrival, r.PromptTokens, r.SourceFailed = int64(i)*1e9, 50, true
		rows = append(rows, r)
	}
	s, err := ComputeStats(&sliceReader{rows: rows}, SLO{})
	if err != nil {
		t.Fatal(err)
	}
	var tab bytes.Buffer
	s.WriteTable(&tab)
	for _, k := range []string{"input", "output"} {
		if !regexp.MustCompile(k + ` tokens +— \(every row failed in the source trace\)\n`).MatchString(tab.String()) {
			t.Errorf("table:\n%s\nwant %s tokens — (every row failed in the source trace)", tab.String(), k)
		}
	}
}

// A measured run with no success has no window: its throughput is
// unmeasured, as `record` prints it, not 0 req/s.
func TestStatsThroughputNoSuccess(t *testing.T) {
	s, err := ComputeStats(&sliceReader{rows: sampleRequests()}, SLO{}) // b is warm-up, c failed
	if err != nil {
		t.Fatal(err)
	}
	if tp := s.Throughput; tp == nil || tp.RequestsPerSec != nil || tp.OutputTokensPerSec != nil || tp.WindowSeconds != 0 {
		t.Errorf("throughput %+v, want no rates", tp)
	}
	var buf bytes.Buffer
	if s.WriteTable(&buf); !strings.Contains(buf.String(), "— (no request succeeded)") {
		t.Errorf("table:\n%s", buf.String())
	}
}
