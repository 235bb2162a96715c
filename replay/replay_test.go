package replay

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

func TestValidateNamesFields(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Arrival = Closed
	cfg.TimeScale = -1
	cfg.Endpoint = "embeddings"
	err := cfg.Validate()
	for _, field := range []string{"BaseURL", "Model", "Concurrency", "TimeScale", "Endpoint"} {
		if err == nil || !strings.Contains(err.Error(), "Config."+field+":") {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Errorf("want *FieldError in %v", err)
	}
	cfg = DefaultConfig()
	cfg.BaseURL, cfg.Model = "http://h/v1", "m"
	if err := cfg.Validate(); err != nil {
		t.Errorf("defaults + URL + model: %v", err)
	}
	cfg.Text = TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}
	if err := cfg.Validate(); err != nil {
		t.Errorf("test engine's text model: %v", err)
	}
	closed := cfg
	closed.Arrival, closed.Concurrency, closed.TimeScale = Closed, 4, 0.5 // would be silently ignored
	if err := closed.Validate(); err == nil || !strings.Contains(err.Error(), "Config.TimeScale: applies to the open loop only") {
		t.Errorf("closed loop with a time scale: %v", err)
	}
	cfg.Text.Prefix = 21 // more than the overhead it is part of
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Config.Text:") || !strings.Contains(err.Error(), "Prefix") {
		t.Errorf("prefix beyond the overhead: error %v, want one naming Text.Prefix", err)
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "s.json")
	os.WriteFile(js, []byte(`{"base_url":"http://x/v1","model":"m","timeout":"7s","arrival":"closed","concurrency":4,"text_model":{"tokens_per_byte":1,"overhead":20}}`), 0o644)
	cfg := DefaultConfig()
	if err := LoadSettings(js, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Timeout != 7*time.Second || cfg.Arrival != Closed || cfg.Concurrency != 4 || cfg.Text.Overhead != 20 || cfg.APIKeyEnv != "OPENAI_API_KEY" {
		t.Errorf("json settings: %+v", cfg)
	}
	tm := filepath.Join(dir, "s.toml")
	os.WriteFile(tm, []byte("base_url = \"http://y/v1\"\nmodel = \"m2\"\ntime_scale = 0.5\n[text_model]\ntokens_per_byte = 0.25\n"), 0o644)
	if err := LoadSettings(tm, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://y/v1" || cfg.TimeScale != 0.5 || cfg.Text.TokensPerByte != 0.25 || cfg.Concurrency != 4 {
		t.Errorf("toml overlay: %+v", cfg)
	}
	for name, body := range map[string]string{"k.json": `{"api_key":"sk-x"}`, "k.toml": "api_key = \"sk-x\"\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		err := LoadSettings(p, &cfg)
		if err == nil || !strings.Contains(err.Error(), "environment") {
			t.Errorf("%s: want an unknown-key error pointing at the environment, got %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "sk-x") {
			t.Errorf("%s: error repeats the key value: %v", name, err)
		}
	}
}

func TestPromptBuilder(t *testing.T) {
	m := TextModel{TokensPerByte: 1, Overhead: 20}
	pb := NewPromptBuilder(m, 16, 42)
	for i, n := range []int32{21, 100, 1000, 4000, 5} {
		r := &traces.Request{PromptTokens: n}
		got := pb.Build(nil, i, r)
		if want := max(int(n)-20, 1); len(got) != want {
			t.Errorf("%d tokens: %d bytes, want %d", n, len(got), want)
		}
		for _, b := range got {
			if b < 0x20 || b > 0x7e {
				t.Fatalf("non-printable byte %q", b)
			}
		}
	}
	// Unique from the first bytes.
	a := pb.Build(nil, 7, &traces.Request{PromptTokens: 200})
	b := pb.Build(nil, 8, &traces.Request{PromptTokens: 200})
	if string(a[:12]) == string(b[:12]) {
		t.Errorf("prompts 7 and 8 share a prefix: %q %q", a[:12], b[:12])
	}
	// A run's prompts share RunTagBytes (a 5-digit base-36 salt), no more.
	run := NewPromptBuilder(m, 16, 0xabcdef)
	c, d := run.Build(nil, 1, &traces.Request{PromptTokens: 200}), run.Build(nil, 2, &traces.Request{PromptTokens: 200})
	if n := commonPrefix(c, d); n != RunTagBytes {
		t.Errorf("prompts of one run share %d bytes (%q, %q), RunTagBytes is %d", n, c[:n], d[:n], RunTagBytes)
	}
	// Equal hashes, equal text; the hashed part ends where the hashes do.
	h1 := &traces.Request{PromptTokens: 100, PrefixHashes: []uint64{11, 22, 33}}
	h2 := &traces.Request{PromptTokens: 120, PrefixHashes: []uint64{11, 22, 44}}
	p1, p2 := pb.Build(nil, 1, h1), pb.Build(nil, 2, h2)
	shared := 2*16 - 20
	if string(p1[:shared]) != string(p2[:shared]) {
		t.Errorf("blocks with equal hashes differ:\n%q\n%q", p1[:shared], p2[:shared])
	}
	if string(p1[shared:shared+16]) == string(p2[shared:shared+16]) {
		t.Errorf("blocks with different hashes are equal")
	}
	if len(p1) != 80 || len(p2) != 100 {
		t.Errorf("hashed lengths %d %d, want 80 100", len(p1), len(p2))
	}
	// With the template's tokens before the text known, the shared blocks
	// cover exactly their prompt tokens: 7 template tokens + 25 bytes.
	pre := NewPromptBuilder(TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}, 16, 42)
	r1, r2 := pre.Build(nil, 1, h1), pre.Build(nil, 2, h2)
	if n := commonPrefix(r1, r2); n < 2*16-7 || string(r1[2*16-7:3*16-7]) == string(r2[2*16-7:3*16-7]) {
		t.Errorf("with Prefix 7 the prompts share %d bytes, want the %d of two blocks", n, 2*16-7)
	}
	if len(r1) != 80 || len(r2) != 100 {
		t.Errorf("with Prefix 7: lengths %d %d, want 80 100", len(r1), len(r2))
	}
	// Another salt: nothing shared across runs.
	q1 := NewPromptBuilder(m, 16, 43).Build(nil, 1, h1)
	if string(q1[:shared]) == string(p1[:shared]) {
		t.Errorf("a new salt kept the hashed text")
	}
	// A fractional model still hits its byte count.
	m2 := TextModel{TokensPerByte: 0.2, Overhead: 7}
	if got, want := len(NewPromptBuilder(m2, 0, 1).Build(nil, 0, &traces.Request{PromptTokens: 207})), 1000; got != want {
		t.Errorf("0.2 tok/byte: %d bytes, want %d", got, want)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestHappyPath(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint Endpoint
		overhead float64
		perChunk int
	}{
		{"chat one token per chunk", Chat, 20, 1},
		{"chat three tokens per chunk", Chat, 20, 3},
		{"completions", Completions, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{TokensPerChunk: tc.perChunk, ITL: time.Millisecond, Record: true})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.Endpoint = tc.endpoint
			cfg.Text.Overhead = tc.overhead
			cfg.IgnoreEOS = true
			cfg.KeepText = true
			in := rows(5, 2*time.Millisecond, 64, 10)
			in[0].Warmup = true
			s, out := runRows(t, cfg, in)
			if s.Sent != 4 || s.Warmup != 1 || s.Succeeded != 4 || s.Failed != 0 {
				t.Fatalf("summary %+v", s)
			}
			for _, r := range out {
				if r.Error != "" {
					t.Fatalf("%s: %s", r.ID, r.Error)
				}
				if r.UsagePrompt != 64 || r.UsageOutput != 10 || len(r.TokenTimes) != 10 {
					t.Errorf("%s: usage %d/%d, %d token times", r.ID, r.UsagePrompt, r.UsageOutput, len(r.TokenTimes))
				}
				if want := int32((10 + tc.perChunk - 1) / tc.perChunk); r.Chunks != want {
					t.Errorf("%s: %d chunks, want %d", r.ID, r.Chunks, want)
				}
				if r.ScheduledSend != r.Arrival || r.ActualSend < r.ScheduledSend || r.FirstToken < r.ActualSend ||
					r.LastToken < r.FirstToken || r.TokenTimes[0] != r.FirstToken || r.TokenTimes[9] != r.LastToken {
					t.Errorf("%s: times sched %d sent %d first %d last %d tokens %v", r.ID, r.ScheduledSend, r.ActualSend, r.FirstToken, r.LastToken, r.TokenTimes)
				}
				if !slices.IsSorted(r.TokenTimes) {
					t.Errorf("%s: token times not sorted", r.ID)
				}
				if r.HTTPStatus != 200 || r.FinishReason != "length" || len(r.OutputText) != 10 {
					t.Errorf("%s: status %d finish %q text %q", r.ID, r.HTTPStatus, r.FinishReason, r.OutputText)
				}
			}
			if s.TTFT.N != 4 || s.TPOT.N != 4 || s.E2E.N != 4 || s.TTFT.P50 <= 0 {
				t.Errorf("latencies %+v %+v %+v", s.TTFT, s.TPOT, s.E2E)
			}
			// Nine gaps a request; with as many gaps each, their mean is
			// the mean TPOT.
			if d := s.ITL.Mean - s.TPOT.Mean; s.ITL.N != 4*9 || d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("ITL %+v, want 36 gaps averaging the mean TPOT %v", s.ITL, s.TPOT.Mean)
			}
			for _, q := range srv.Requests() {
				if q.Temperature == nil || *q.Temperature != 0 || !q.IgnoreEOS || !q.IncludeUsage || !q.Stream || q.MaxTokens != 10 || q.Model != "servesim-tiny" {
					t.Errorf("request on the wire: %+v", q)
				}
				if q.Authorization != "" {
					t.Errorf("sent an Authorization header with an unset key env")
				}
			}
		})
	}
}

func TestCalibrate(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Text = TextModel{}
	tm, err := Calibrate(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := tm.TokensPerByte - 1; d*d > 1e-9 || (tm.Overhead-20)*(tm.Overhead-20) > 1e-6 {
		t.Errorf("calibrated %+v, want {1 20}", tm)
	}
	// Run calibrates when the model is zero, and the prompts then cost exactly.
	cfg.Text = TextModel{}
	s, out := runRows(t, cfg, rows(2, 0, 300, 2))
	if s.Text != tm || out[0].UsagePrompt != 300 {
		t.Errorf("run text model %+v, usage %d", s.Text, out[0].UsagePrompt)
	}
	if got := srv.Count(); got != 3+3+2 {
		t.Errorf("server saw %d requests, want 8 (3 + 3 probes, 2 rows)", got)
	}
}

func TestPrefixHashesShareText(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.BlockSize = 16
	in := rows(3, 0, 100, 1)
	in[0].PrefixHashes = []uint64{1, 2, 3}
	in[1].PrefixHashes = []uint64{1, 2, 4}
	_, out := runRows(t, cfg, in)
	reqs := srv.Requests()
	var hashed []string
	for _, q := range reqs {
		if strings.HasPrefix(q.Prompt, "[r") {
			continue
		}
		hashed = append(hashed, q.Prompt)
	}
	if len(hashed) != 2 || hashed[0][:12] != hashed[1][:12] {
		t.Errorf("hashed prompts do not share their first block: %q", hashed)
	}
	for _, r := range out {
		if r.UsagePrompt != 100 {
			t.Errorf("%s: %d prompt tokens, want 100", r.ID, r.UsagePrompt)
		}
	}
}

func TestOpenLoopSchedule(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.TimeScale = 0.5
	in := rows(200, 4*time.Millisecond, 32, 2)
	start := time.Now()
	s, out := runRows(t, cfg, in)
	if el := time.Since(start); el < 398*time.Millisecond {
		t.Errorf("200 rows 4 ms apart at scale 0.5 took %v, want ≥ 398 ms", el)
	}
	for _, r := range out {
		if r.ScheduledSend != r.Arrival/2 {
			t.Fatalf("%s: scheduled %d, arrival %d", r.ID, r.ScheduledSend, r.Arrival)
		}
		if lag, _ := r.ScheduleLag(); lag < 0 {
			t.Fatalf("%s: sent %v early", r.ID, time.Duration(-lag))
		}
	}
	t.Logf("schedule lag p50 %v p99 %v max %v", s.Lag.P50, s.Lag.P99, s.Lag.Max)
	// The < 1 ms p99 target is checked by the benchmark on a quiet machine;
	// here other processes may own the CPUs.
	if os.Getenv("SERVESIM_STRICT_LAG") != "" && s.Lag.P99 > LagLimit {
		t.Errorf("schedule lag p99 %v > %v", s.Lag.P99, LagLimit)
	}
	if s.LagFlagged != (s.Lag.P99 > LagLimit) {
		t.Errorf("flag %v for p99 %v", s.LagFlagged, s.Lag.P99)
	}
}

// maxInFlight runs n simultaneous rows against a server with a 15 ms TTFT
// and returns the peak number of overlapping [send, last token] spans.
func maxInFlight(t *testing.T, cfg Config, n int) (int, *Summary) {
	srv := replaytest.New(replaytest.Options{TTFT: 15 * time.Millisecond})
	defer srv.Close()
	cfg.BaseURL = srv.BaseURL()
	s, out := runRows(t, cfg, rows(n, 0, 32, 1))
	var spans [][2]int64
	for _, r := range out {
		spans = append(spans, [2]int64{r.ActualSend, r.LastToken})
	}
	return peakStreams(spans), s
}

func TestClosedLoop(t *testing.T) {
	cfg := testConfig(nil)
	cfg.Arrival, cfg.Concurrency = Closed, 3
	peak, s := maxInFlight(t, cfg, 12)
	if peak != 3 || s.Succeeded != 12 {
		t.Errorf("closed loop of 3: peak in flight %d, succeeded %d", peak, s.Succeeded)
	}
}

func TestConcurrencyCap(t *testing.T) {
	cfg := testConfig(nil)
	cfg.Concurrency = 2
	peak, s := maxInFlight(t, cfg, 8)
	if peak > 2 || s.CapWaits == 0 || s.Succeeded != 8 {
		t.Errorf("cap 2: peak %d, cap waits %d, succeeded %d", peak, s.CapWaits, s.Succeeded)
	}
	if s.Lag.Max < 10*time.Millisecond {
		t.Errorf("late sends should show as lag, max lag %v", s.Lag.Max)
	}
}

func TestFlushesWhileRunning(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.FlushEvery = 20 * time.Millisecond
	w := &memWriter{}
	if _, err := Run(t.Context(), cfg, &sliceReader{rows: rows(20, 10*time.Millisecond, 8, 1)}, w); err != nil {
		t.Fatal(err)
	}
	if w.flushes < 5 {
		t.Errorf("%d flushes over a 200 ms run flushing every 20 ms", w.flushes)
	}
}
