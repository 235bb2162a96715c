package calibrate

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
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

// A request that makes one token starts and ends at the same instant: it
// holds its tokens then, not at every later start.
func TestPeakRunningOneTokenRequest(t *testing.T) {
	rows := []*traces.Request{
		row("a", 1000, 0, 10), // one token at 10 ms
		row("b", 50, 0, 20, 30, 40),
		row("c", 60, 0, 25, 35),
	}
	n, tok := peakRunning(rows)
	// a alone holds 1000+1; b and c together at most 52+62.
	if n != 2 || tok != 1001 {
		t.Errorf("peak %d sequences, %d tokens; want 2 and 1001", n, tok)
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
	late := lateFirsts(kept, lateFirstRate(kept))
	n := 0
	for _, l := range late {
		if l {
			n++
		}
	}
	kept = keep(kept, late)
	if n != 1 || len(kept) != 1 || !kept[0].FromIdle {
		t.Errorf("late first: dropped %d, kept %+v", n, kept)
	}
}

func durSec(s float64) time.Duration { return time.Duration(s * 1e9) }

// A run written to its trace reads back with what the slot model needs:
// its spec, reset, shared tokens, salt and text model.
func TestRunTraceRoundTrip(t *testing.T) {
	tm := replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}
	spec := RunSpec{Name: "decode-c2-p64-r2", Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{2}, Requests: 2, Repeat: 2}
	in := &RunResult{Spec: spec, SlotReset: 513, Shared: 9, Salt: 12345, Text: tm,
		Rows: []*traces.Request{row("decode-c2-p64-r2/1", 64, 0, 50, 60), row("decode-c2-p64-r2/0", 64, 0, 40, 60)}}
	path := filepath.Join(t.TempDir(), "07-decode-c2-p64-r2.parquet")
	if err := writeRun(path, traces.Meta{Model: "m"}, in, tm); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Spec.Name != spec.Name || out.Spec.Kind != spec.Kind || out.Spec.Concurrency != 2 || out.Spec.Repeat != 2 ||
		out.SlotReset != 513 || out.Shared != 9 || out.Salt != 12345 || out.Text != tm || len(out.Rows) != 2 {
		t.Errorf("read back %+v (salt %d, text %+v), want the run written", out.Spec, out.Salt, out.Text)
	}
}

// A run's metadata that the refit needs and that is there but is no
// number is an error naming the file, the key and what it should hold; it
// was read as 0 (a run never reset, a ramp point of 0 clients) unseen.
func TestReadRunRefusesMalformedMeta(t *testing.T) {
	rows := []*traces.Request{row("memory-c4-r1/0", 64, 0, 40, 60)}
	for _, tc := range []struct{ key, value, want string }{
		{"concurrency", "four", "an integer ≥ 0"},
		{"slot_reset_tokens", "257 tokens", "an integer ≥ 0"},
		{"shared_prompt_tokens", "-3", "an integer ≥ 0"},
		{"prompt_salt", "0x1f", "an unsigned integer"},
		{"tokens_per_byte", "NaN", "a finite number ≥ 0"},
		{"prompt_prefix_tokens", "seven", "a finite number ≥ 0"},
	} {
		m := traces.Meta{Model: "m"}
		m.Set("calibrate_run", "memory-c4-r1")
		m.Set("calibrate_kind", KindMemory)
		m.Set("concurrency", "4")
		m.Set(tc.key, tc.value)
		path := filepath.Join(t.TempDir(), "09-memory-c4-r1.parquet")
		if err := traces.WriteAll(path, m, rows); err != nil {
			t.Fatal(err)
		}
		_, err := ReadRun(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.key) ||
			!strings.Contains(err.Error(), strconv.Quote(tc.value)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: error %v, want the file, key, value and %q", tc.key, tc.value, err, tc.want)
		}
	}
}

func TestRunResiduals(t *testing.T) {
	var c StepCoefficients
	c.C0 = Coef{Value: 0.01, Status: StatusFit}
	c.Dense = DenseOff()
	runs := []*RunResult{{Spec: RunSpec{Name: "a"}}, {Spec: RunSpec{Name: "b"}}, {Spec: RunSpec{Name: "c"}}}
	obs := []Observation{
		{Run: 0, PrefillTokens: 64, PrefillResident: 64 * 900, Seconds: 0.01}, // prefill: residual only
		{Run: 0, DecodeSeqs: 2, DecodeResident: 2 * 300, Seconds: 0.02},
		{Run: 0, DecodeSeqs: 2, DecodeResident: 2 * 300, Seconds: 0.02},
		{Run: 2, DecodeSeqs: 1, DecodeResident: 100, Seconds: 0.008},
	}
	got := runResiduals(c.Predict(nil, obs), obs, runs)
	want := []RunResidual{{Run: "a", N: 3, Resident: 300, Median: -0.5}, {Run: "c", N: 1, Resident: 100, Median: 0.25}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Run != want[i].Run || got[i].N != want[i].N || got[i].Resident != want[i].Resident || math.Abs(got[i].Median-want[i].Median) > 1e-12 {
			t.Errorf("run %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The short slot fill asks for fewer tokens than a chat request costs on
// the stub (20 beyond its text), so the engine counts more than asked: the
// run's SlotReset is the engine's count + 1, a long fill's likewise.
func TestRunPlanSlotResetFromUsage(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	run := func(name string, repeat int) RunSpec {
		return RunSpec{Name: name, Kind: KindDecode, Concurrency: 2, Prompts: []int{64}, Outputs: []int{2}, Requests: 2, Repeat: repeat}
	}
	plan := &Plan{Runs: []RunSpec{run("d-r1", 1), run("d-r2", 2)}}
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "m", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 1}
	res, _, err := RunPlan(t.Context(), plan, LiveOptions{ResetSlots: true, Replay: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range res {
		if r.Spec.Kind != KindReset {
			got = append(got, r.SlotReset)
		}
	}
	// The short fill is at least one byte of text + 20 tokens.
	if want := []int64{max(ResetPromptTokens, 21) + 1, LongResetPromptTokens + 1}; !slices.Equal(got, want) {
		t.Errorf("SlotReset of the runs %v, want %v", got, want)
	}
}
