package calibrate

import (
	"math"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// row builds a succeeded request with the given token times (ms).
func row(id string, prompt int32, send float64, tokMs ...float64) *traces.Request {
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.UsagePrompt = id, prompt, prompt
	r.ScheduledSend, r.ActualSend = int64(send*1e6), int64(send*1e6)
	for _, ms := range tokMs {
		r.TokenTimes = append(r.TokenTimes, int64(ms*1e6))
	}
	r.FirstToken, r.LastToken = r.TokenTimes[0], r.TokenTimes[len(r.TokenTimes)-1]
	r.UsageOutput, r.OutputTokens = int32(len(tokMs)), int32(len(tokMs))
	r.HTTPStatus = 200
	return r
}

func TestWindowSteps(t *testing.T) {
	var obs []Observation
	t0 := int64(0)
	for i := range 10 { // 10 back-to-back decode steps of 10 ms ± 3 ms jitter at the boundaries
		end := int64(i+1)*10e6 + int64((i%2)*6e6-3e6)
		if i == 9 {
			end = 100e6
		}
		obs = append(obs, Observation{Start: t0, End: end, DecodeSeqs: 2, DecodeContext: float64(100 + 2*i), Seconds: float64(end-t0) * 1e-9})
		t0 = end
	}
	obs = append(obs, Observation{Start: t0, End: t0 + 50e6, PrefillTokens: 10, Seconds: 0.05})
	got, counts := WindowSteps(nil, nil, obs, 4)
	if len(got) != 4 || counts[0] != 4 || counts[2] != 2 || counts[3] != 1 {
		t.Fatalf("windows %v", counts)
	}
	if got[2].End != 100e6 || math.Abs(got[2].Seconds-0.010) > 0.0031 || got[2].DecodeContext != 117 || got[3].PrefillTokens != 10 {
		t.Errorf("window 2: %+v; prefill %+v", got[2], got[3])
	}
	var total float64
	for i, o := range got[:3] {
		total += o.Seconds * counts[i]
	}
	if math.Abs(total-0.1) > 1e-9 {
		t.Errorf("windows cover %v s, want 0.1", total)
	}
}

func TestPeakRunning(t *testing.T) {
	rows := []*traces.Request{
		row("a", 100, 0, 10, 20, 30),
		row("b", 50, 0, 20, 30, 40),
		row("c", 10, 0, 40, 50), // starts when b ends: no overlap with b
	}
	n, tok := peakRunning(rows)
	if n != 2 {
		t.Errorf("peak %d, want 2", n)
	}
	// At 30 ms: a holds 100+3, b holds 50+2.
	if tok != 155 {
		t.Errorf("peak tokens %d, want 155", tok)
	}
}

func TestProbeConcurrency(t *testing.T) {
	mk := func(c int, tps, ttft float64, rows ...*traces.Request) *RunResult {
		s := Summarize(rows)
		s.OutputTokensPerSec = tps
		s.TTFT.Mean = 0
		r := &RunResult{Spec: RunSpec{Kind: KindMemory, Concurrency: c}, Rows: rows, Summary: s}
		r.Summary.TTFT.Mean = durSec(ttft)
		return r
	}
	runs := []*RunResult{
		mk(1, 30, 0.7, row("a", 512, 0, 10, 20)),
		mk(2, 35, 1.0, row("a", 512, 0, 10, 20), row("b", 512, 0, 11, 21)),
		mk(3, 35, 2.0, row("a", 512, 0, 10, 20), row("b", 512, 0, 11, 21), row("c", 512, 0, 30, 40)),
	}
	p := ProbeConcurrency(runs)
	if p.MaxSeqs != 2 || !p.Saturated || p.Knee != 2 || p.MaxTokens != 1027 {
		t.Errorf("probe %+v", p)
	}
}

func TestDropResumedAndLateFirst(t *testing.T) {
	rows := []*traces.Request{row("a", 100, 0, 50, 60), row("b", 40, 0, 60.5, 70)}
	obs := []Observation{
		{End: 50e6, PrefillTokens: 100, Seconds: 0.05, FromIdle: true},
		{End: 60e6, PrefillTokens: 40, DecodeSeqs: 1, Seconds: 0.005}, // b's first at 60.5 ms: within tolerance
		{End: 70e6, PrefillTokens: 141, DecodeSeqs: 1, Seconds: 0.01}, // phantom recompute of a
	}
	kept := dropResumed(append([]Observation(nil), obs...), rows, 1e6)
	if len(kept) != 2 {
		t.Fatalf("kept %d, want 2", len(kept))
	}
	// 40 prefill tokens in 5 ms are faster than half of a's 0.5 ms/token.
	kept, n := dropLateFirst(kept)
	if n != 1 || len(kept) != 1 || !kept[0].FromIdle {
		t.Errorf("late first: dropped %d, kept %+v", n, kept)
	}
}

func durSec(s float64) time.Duration { return time.Duration(s * 1e9) }
