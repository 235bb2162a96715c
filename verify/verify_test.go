package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// tinyPlan is the CPU test engine's plan with max_num_seqs left open.
const tinyPlan = `[model]
name = "servesim-tiny"
weight_version = "seed-1"
precision = "f16"
max_new_tokens = 4096

[batch]
strategy = "continuous"
max_num_seqs = %d
max_num_batched_tokens = 4096
chunked_prefill = false
prefix_caching = false

[device]
model = "cpu"
count = 1
gpu_memory_utilization = 0.9
block_size = 16
max_model_len = 4096

[cost]
usd_per_hour = 0.10
usd_per_kwh = 0.15
pue = 1.2
`

// candidates builds a candidate file with one candidate per max_num_seqs.
func candidates(seqs ...int) *sweep.CandidateFile {
	cf := &sweep.CandidateFile{}
	for i, n := range seqs {
		c := sweep.Candidate{Rank: int64(i + 1), Index: int64(10 + i), Label: fmt.Sprintf("seqs=%d", n), Plan: fmt.Sprintf(tinyPlan, n), RateScale: 1}
		cf.Candidates = append(cf.Candidates, c)
	}
	return cf
}

// writeTrace writes n requests, one every gap.
func writeTrace(t *testing.T, dir string, n int, gap time.Duration) string {
	t.Helper()
	var reqs []*traces.Request
	for i := range n {
		var r traces.Request
		r.Reset()
		r.ID = fmt.Sprintf("r%03d", i)
		r.Arrival = int64(i) * int64(gap)
		r.PromptTokens, r.OutputTokens = 60, 12
		reqs = append(reqs, &r)
	}
	path := filepath.Join(dir, "trace.parquet")
	if err := traces.WriteAll(path, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeEngine is a health endpoint that answers 200 while the file up in
// dir exists: the engine command template creates it and removes it when
// stopped (SIGTERM) or when it "dies".
func fakeEngine(t *testing.T, dir string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(filepath.Join(dir, "up")); err != nil {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/v1/models"
}

// engineCmd: max_num_seqs 2 fails to start, 3 never gets healthy, 5 dies
// 0.3 s into its run; the others run until stopped.
const engineCmd = `{{if eq .MaxNumSeqs 2}}echo cannot bind port {{.Port}} >&2; exit 3{{end}}
{{if eq .MaxNumSeqs 3}}exec sleep 30{{end}}
trap 'rm -f "$D/up"; exit 0' TERM
echo {{.MaxNumSeqs}} {{.MaxModelLen}} {{.BlockSize}} {{.GPUMemoryUtilization}} {{.MaxNumBatchedTokens}} >> "$D/knobs"
touch "$D/up"
{{if eq .MaxNumSeqs 5}}sleep 0.3; rm -f "$D/up"; exit 1{{end}}
sleep 300 & wait`

// stubReplay is the replay configuration of a fast stub server that
// lives as long as the test.
func stubReplay(t *testing.T) replay.Config {
	srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Timeout = 10 * time.Second
	return cfg
}

// refitStub is the replay configuration of a stub server for refits,
// with the text model given: tokens 8 ms apart (16 ms to the first),
// twice the H100 profile's decode step, so that the refit has something
// to correct (at 4 ms the profile was as close as the stub's timer jitter
// lets a fit get). Its requests go one at a time: the stub does not
// batch, so overlapping streams make no steps.
func refitStub(t *testing.T) replay.Config {
	srv := replaytest.New(replaytest.Options{TTFT: 16 * time.Millisecond, ITL: 8 * time.Millisecond})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20}
	return cfg
}

// parentProfile copies the H100 test profile to path, the parent of a
// refit, and loads it from there.
func parentProfile(t *testing.T, path string) *calibrate.Profile {
	data, err := os.ReadFile("../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	prof, err := calibrate.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

func TestRunFailuresAndComparison(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	cfg := stubReplay(t)
	out := filepath.Join(dir, "out")
	opt := Options{
		Candidates: candidates(1, 2, 3, 5, 4),
		Trace:      writeTrace(t, dir, 24, 50*time.Millisecond),
		Slice:      Slice{Head: 20},
		Replay:     cfg,
		Engine:     &EngineSpec{Start: engineCmd, HealthURL: fakeEngine(t, dir), HealthTimeout: time.Second, StopTimeout: 3 * time.Second},
		Out:        out,
		Tolerances: DefaultTolerances(),
	}
	t0 := time.Now()
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %v", time.Since(t0))
	want := []string{StatusOK, StatusStartFailed, StatusHealth, StatusDied, StatusOK}
	for i, c := range res.Candidates {
		if c.Status != want[i] {
			t.Errorf("candidate %s: status %s (%s), want %s", c.Label, c.Status, c.Detail, want[i])
		}
	}
	if d := res.Candidates[1].Detail; !strings.Contains(d, "exit status 3") || !strings.Contains(d, "cannot bind port") {
		t.Errorf("start failure detail %q: want the exit status and the log tail", d)
	}
	if d := res.Candidates[3].Detail; !strings.Contains(d, "ended during the run") {
		t.Errorf("died detail %q", d)
	}
	if res.Requests != 20 || res.Incomplete != 3 {
		t.Errorf("requests %d incomplete %d, want 20, 3", res.Requests, res.Incomplete)
	}
	knobs, _ := os.ReadFile(filepath.Join(dir, "knobs"))
	if got := strings.Fields(string(knobs)); len(got) != 15 || got[0] != "1" || got[1] != "4096" || got[2] != "16" || got[3] != "0.9" || got[4] != "4096" || got[5] != "5" || got[10] != "4" {
		t.Errorf("engine started with knobs %q", knobs)
	}
	if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
		t.Error("the last engine was not stopped")
	}
	for _, i := range []int{0, 4} {
		c := res.Candidates[i]
		if c.Measured.Completed != 20 || c.Predicted.Completed != 20 || len(c.Rows) != len(MetricNames) || c.Pass == nil {
			t.Errorf("%s: measured %d predicted %d rows %d", c.Label, c.Measured.Completed, c.Predicted.Completed, len(c.Rows))
		}
		_, rows, err := traces.ReadAll(c.Trace)
		if err != nil || len(rows) != 20 || rows[0].OutputText == "" {
			t.Errorf("%s: measured trace: %v, %d rows", c.Label, err, len(rows))
		}
		if _, err := os.Stat(c.SimTrace); err != nil {
			t.Error(err)
		}
	}
	if res.Consistency.Compared != 20 {
		t.Errorf("consistency compared %d requests, want 20", res.Consistency.Compared)
	}
	if len(res.Ranking.Entries) != 2 || res.Ranking.TauSweep == nil {
		t.Errorf("ranking %+v", res.Ranking)
	}
	var b strings.Builder
	res.WriteTable(&b)
	for _, s := range []string{"ENGINE_START_FAILED", "HEALTH_TIMEOUT", "ENGINE_DIED", MetricThroughput, "Kendall"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
}

// With Repeat, each candidate is measured that many times, each on a
// freshly started engine; the rows compare the prediction with the mean
// and carry the runs' range, and a run that fails fails the candidate.
func TestRunRepeatsEachCandidate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	cfg := stubReplay(t)
	// max_num_seqs 6 dies 0.3 s into its second start.
	cmd := `trap 'rm -f "$D/up"; exit 0' TERM
echo {{.MaxNumSeqs}} >> "$D/starts"
touch "$D/up"
{{if eq .MaxNumSeqs 6}}if [ -e "$D/six" ]; then sleep 0.3; rm -f "$D/up"; exit 1; fi; touch "$D/six"{{end}}
sleep 300 & wait`
	res, err := Run(context.Background(), Options{
		Candidates: candidates(1, 6), Trace: writeTrace(t, dir, 12, 50*time.Millisecond), Replay: cfg,
		Engine: &EngineSpec{Start: cmd, HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 3 * time.Second},
		Out:    filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Repeat: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if starts, _ := os.ReadFile(filepath.Join(dir, "starts")); strings.Join(strings.Fields(string(starts)), ",") != "1,1,1,6,6" {
		t.Errorf("engine starts %q: want three for the first candidate, two for the one that died in its second run", starts)
	}
	c := res.Candidates[0]
	if c.Status != StatusOK || len(c.Repeats) != 3 {
		t.Fatalf("first candidate: %s (%s), %d runs", c.Status, c.Detail, len(c.Repeats))
	}
	var ttft []float64
	for k, r := range c.Repeats {
		want := filepath.Join(dir, "out", fmt.Sprintf("rank01.run%d.parquet", k+1))
		if r.Status != StatusOK || r.Trace != want || r.EngineLog == "" {
			t.Errorf("run %d: %s, trace %s, log %q", k+1, r.Status, r.Trace, r.EngineLog)
		}
		if _, rows, err := traces.ReadAll(r.Trace); err != nil || len(rows) != 12 {
			t.Errorf("run %d: %v, %d rows", k+1, err, len(rows))
		}
		ttft = append(ttft, *r.Measured.TTFTMean)
	}
	if c.Trace != c.Repeats[0].Trace {
		t.Errorf("candidate trace %s: want the first run's", c.Trace)
	}
	mean := (ttft[0] + ttft[1] + ttft[2]) / 3
	row := c.Rows[slices.Index(MetricNames, MetricTTFTMean)]
	if math.Abs(*c.Measured.TTFTMean-mean) > 1e-12 || *row.Measured != *c.Measured.TTFTMean ||
		*row.MeasuredMin != slices.Min(ttft) || *row.MeasuredMax != slices.Max(ttft) {
		t.Errorf("mean TTFT %v, row %v (%v–%v): want the mean %v of %v and its range", *c.Measured.TTFTMean,
			*row.Measured, *row.MeasuredMin, *row.MeasuredMax, mean, ttft)
	}
	if c.Measured.Requests != 12 || c.Measured.Completed != 12 {
		t.Errorf("measured %d of %d requests, want one run's 12 of 12", c.Measured.Completed, c.Measured.Requests)
	}
	d := res.Candidates[1]
	if d.Status != StatusDied || !strings.Contains(d.Detail, "run 2 of 3") || len(d.Repeats) != 2 || d.Repeats[0].Status != StatusOK {
		t.Errorf("second candidate: %s (%s), %d runs: want engine_died in run 2 of 3", d.Status, d.Detail, len(d.Repeats))
	}
	// Its figures are those of the run that succeeded, beside that run's
	// trace, not the failed run's beside run 1's trace.
	if ok := d.Repeats[0]; d.Trace != ok.Trace || d.Measured.Completed != ok.Measured.Completed || d.Measured.TTFTMean == nil ||
		*d.Measured.TTFTMean != *ok.Measured.TTFTMean || !maps.Equal(d.FailedByKind, ok.FailedByKind) ||
		!strings.Contains(d.Detail, "measured: run 1, which succeeded") {
		t.Errorf("second candidate: trace %s, %d completed, TTFT %v, failed %v, detail %q: want run 1's (%s, %d, %v, %v), said so",
			d.Trace, d.Measured.Completed, FormatValue(MetricTTFTMean, d.Measured.TTFTMean), d.FailedByKind, d.Detail, ok.Trace, ok.Measured.Completed, FormatValue(MetricTTFTMean, ok.Measured.TTFTMean), ok.FailedByKind)
	}
	var b strings.Builder
	res.WriteTable(&b)
	if !strings.Contains(b.String(), "mean (range) of 3, each on a fresh engine") {
		t.Errorf("table does not say the runs:\n%s", b.String())
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("verify.json does not read back: %v", err)
	}
	*row.MeasuredMin = *row.Measured * 2 // a range that leaves out the mean
	c.Rows[slices.Index(MetricNames, MetricTTFTMean)] = row
	res.Candidates[0] = c
	data, _ = json.Marshal(res)
	if _, err := ParseResult(data, "verify.json"); err == nil || !strings.Contains(err.Error(), "range") {
		t.Errorf("a mean outside its range: err = %v", err)
	}
}

func TestStartEngineRefusesARunningServer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "up"), nil, 0o644)
	_, err := StartEngine(context.Background(), EngineSpec{Start: "sleep 30", HealthURL: fakeEngine(t, dir)}, Knobs{}, filepath.Join(dir, "log"))
	if err == nil || !strings.Contains(err.Error(), "already answers") {
		t.Fatalf("err = %v, want a refusal", err)
	}
}

func TestEngineStopCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	spec := EngineSpec{Start: `touch "$D/up"; echo {{.Port}} > "$D/port"`, Stop: `rm "$D/up"; echo stopped {{.MaxNumSeqs}} > "$D/stopped"`,
		HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second}
	e, err := StartEngine(context.Background(), spec, Knobs{Port: "8123", MaxNumSeqs: 7}, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if ok, why := e.Alive(context.Background()); !ok {
		t.Fatalf("a launcher that exited 0 with a healthy engine is alive: %s", why)
	}
	if err := e.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stopped")); string(b) != "stopped 7\n" {
		t.Errorf("stop command wrote %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "port")); string(b) != "8123\n" {
		t.Errorf("start command wrote port %q", b)
	}
}

func TestParseTemplate(t *testing.T) {
	if _, err := ParseTemplate("engine-cmd", "x {{.MaxNumSeqs}} {{.Port}}"); err != nil {
		t.Error(err)
	}
	if _, err := ParseTemplate("engine-cmd", "x {{.NoSuchKnob}}"); err == nil {
		t.Error("unknown field accepted")
	}
	if _, err := ParseTemplate("engine-cmd", "x {{.MaxNumSeqs"); err == nil {
		t.Error("bad template accepted")
	}
}

// Refit folds every measured run into the profile: one per candidate, or
// each of its repeats.
func TestRefitFoldsVerificationRuns(t *testing.T) {
	t.Parallel()
	for _, repeat := range []int{1, 2} {
		t.Run(fmt.Sprintf("repeat-%d", repeat), func(t *testing.T) { testRefit(t, repeat, nil) })
	}
	// A parent fitted another way than calibrate's defaults is refitted
	// that way: the same model form, terms held at 0, window and folds.
	t.Run("parent-method", func(t *testing.T) {
		testRefit(t, 1, &calibrate.FitMethod{Window: 1, Relative: true, Linear: true, Without: []string{"ca"}, HeldOutFolds: 2})
	})
}

func testRefit(t *testing.T, repeat int, method *calibrate.FitMethod) {
	t.Parallel()
	dir := t.TempDir()
	cfg := refitStub(t)
	parent := filepath.Join(dir, "parent.json")
	prof := parentProfile(t, parent)
	if method != nil {
		prof.Method = method
	}
	// What the engine reported before the parent's runs: verification
	// runs do not read it again.
	prof.KVReported = &calibrate.ReportedKV{Source: "vllm:cache_config_info", Tokens: 453008, Blocks: 28313, BlockSize: 16, GPUMemoryUtilization: 0.9}
	if err := prof.Save(parent); err != nil {
		t.Fatal(err)
	}
	refit := filepath.Join(dir, "refit.json")
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4, 1), Trace: writeTrace(t, dir, 16, 130*time.Millisecond), Replay: cfg,
		Profile: prof, ProfilePath: parent, Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(),
		Refit: &RefitOptions{Out: refit}, Repeat: repeat,
	})
	if err != nil {
		t.Fatal(err)
	}
	rr := res.Refit
	if rr == nil || rr.Error != "" {
		t.Fatalf("refit: %+v", rr)
	}
	if rr.NewRuns != 2*repeat || rr.OldRuns != 0 || len(rr.Missing) != len(prof.Traces) || rr.StepMdAPEBefore == nil || rr.StepMdAPEAfter == nil {
		t.Errorf("refit %+v", rr)
	}
	t.Logf("step error on the verification runs %.1f%% → %.1f%%", 100**rr.StepMdAPEBefore, 100**rr.StepMdAPEAfter)
	if *rr.StepMdAPEAfter >= *rr.StepMdAPEBefore {
		t.Errorf("step error %v → %v: the refit should fit its own runs better than an H100 profile", *rr.StepMdAPEBefore, *rr.StepMdAPEAfter)
	}
	// The stub's steps take twice the profile's: each run's steps were
	// predicted about half as long before, and as long after.
	if len(rr.StepBiasBefore) != 2*repeat || len(rr.StepBiasAfter) != 2*repeat {
		t.Errorf("step bias for %d and %d runs, want %d", len(rr.StepBiasBefore), len(rr.StepBiasAfter), 2*repeat)
	}
	for name, before := range rr.StepBiasBefore {
		after := rr.StepBiasAfter[name]
		if !strings.HasPrefix(name, "verify-rank0") || before.Decode == nil || after.Decode == nil {
			t.Errorf("step bias of run %q: %+v, %+v", name, before, after)
			continue
		}
		if b, a := *before.Decode, *after.Decode; !(b < -0.3 && b > -0.7) || !(math.Abs(a) < 0.1) {
			t.Errorf("%s: decode step bias %+.3f before, %+.3f after; want about −0.5, then about 0", name, b, a)
		}
	}
	np, err := calibrate.LoadProfile(refit)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := calibrate.FileSHA256(parent)
	last := np.Lineage[len(np.Lineage)-1]
	if last.Relation != "parent" || last.Path != parent || last.SHA256 != sum {
		t.Errorf("lineage %+v", np.Lineage)
	}
	if np.KVReported == nil || *np.KVReported != *prof.KVReported {
		t.Errorf("refit's kv_reported %+v, want the parent's %+v", np.KVReported, prof.KVReported)
	}
	if len(np.Traces) != 2*repeat {
		t.Errorf("new profile cites %d traces, want the %d verification runs", len(np.Traces), 2*repeat)
	}
	if len(rr.MetricErrorAfter) == 0 {
		t.Error("no metric error after the refit")
	}
	want := &calibrate.FitMethod{Window: 8, Relative: true, Without: []string{}, HeldOutFolds: min(2*repeat, 4)} // one fold per run, up to 4
	if method != nil {
		w := *method
		want = &w
	}
	// A parent that recorded no fit settings is refitted with the defaults.
	want.Collinearity, want.Confidence, want.Weights = calibrate.DefaultCollinearity, calibrate.DefaultConfidence, calibrate.WeightsSteps
	if !reflect.DeepEqual(np.Method, want) {
		t.Errorf("refit's method %+v, want %+v", np.Method, want)
	}
	if method != nil {
		if st := np.Step.Ca.Status; st != calibrate.StatusOff {
			t.Errorf("ca status %q, want off as the parent's method holds it", st)
		}
		for _, d := range np.Step.Dense {
			if d.Status != calibrate.StatusOff {
				t.Errorf("dense point at %g tokens has status %q: want the linear form, every point off", d.Tokens, d.Status)
			}
		}
	}
	// At the speed the stub decoded at, the parent's TPOT is right.
	if b, a := rr.MetricErrorBefore["tpot_mean_s"], rr.MetricErrorAtSpeed["tpot_mean_s"]; !(b > 0.3) || !(a < 0.1) {
		t.Errorf("mean TPOT error %.3f with the parent, %.3f at the measured speed; want over 0.3, then under 0.1", b, a)
	}
	// Its prediction says it ran the parent's step times scaled, not the
	// parent's own.
	for _, c := range res.Candidates {
		in, err := traces.Open(filepath.Join(dir, "out", fmt.Sprintf("rank%02d.speed.sim.parquet", c.Rank)))
		if err != nil {
			t.Error(err)
			continue
		}
		if sm := in.Meta().Extra["step_model"]; !strings.Contains(sm, "step times ×") {
			t.Errorf("rank %d at its engine's speed: step_model %q, want it to say the profile's step times were scaled", c.Rank, sm)
		}
		in.Close()
	}
	// Each re-simulation names the profile it drew on, by path and sha256.
	refitSum, _ := calibrate.FileSHA256(refit)
	for _, f := range []struct{ suffix, profile, sum string }{{"refit", refit, refitSum}, {"speed", parent, sum}} {
		meta, _, err := traces.ReadAll(filepath.Join(dir, "out", "rank01."+f.suffix+".sim.parquet"))
		if err != nil {
			t.Error(err)
			continue
		}
		if meta.Extra["profile"] != f.profile || meta.Extra["profile_sha256"] != f.sum {
			t.Errorf("rank01.%s.sim.parquet: profile %q, profile_sha256 %q; want %q, %q", f.suffix, meta.Extra["profile"], meta.Extra["profile_sha256"], f.profile, f.sum)
		}
	}
}

func TestDecodeSlowdown(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	bias := map[string]StepBias{
		"verify-rank01":      {Decode: v(-0.5)},                  // steps took twice the prediction
		"verify-rank02.run1": {Decode: v(0.25), Prompt: v(-0.5)}, // 0.8 of it
		"verify-rank02.run2": {Decode: v(-0.2)},                  // 1.25 of it
		"verify-rank03":      {Prompt: v(0.1)},                   // no decode steps
		"verify-rank010":     {Decode: v(-0.9)},                  // another candidate
	}
	for rank, want := range map[int64]float64{1: 2, 2: (0.8 + 1.25) / 2, 3: 1, 4: 1} {
		if got := decodeSlowdown(bias, rank); math.Abs(got-want) > 1e-12 {
			t.Errorf("rank %d: slowdown %g, want %g", rank, got, want)
		}
	}
}

// Settings that would fail only once candidates run are refused before
// Run writes anything.
func TestRunChecksOptionsFirst(t *testing.T) {
	dir := t.TempDir()
	good := replay.DefaultConfig()
	good.BaseURL, good.Model = "http://127.0.0.1:1/v1", "m"
	nan := DefaultTolerances()
	nan.P99 = math.NaN()
	neg := DefaultTolerances()
	neg.Cost = -0.1
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"url", func(o *Options) { o.Replay.BaseURL = "ftp://x" }, "BaseURL"},
		{"concurrency", func(o *Options) { o.Replay.Concurrency = -3 }, "Concurrency"},
		{"capped", func(o *Options) { o.Replay.Concurrency = 4 }, "re-simulation caps no requests in flight"},
		{"nan", func(o *Options) { o.Tolerances = nan }, "Tolerances.P99: NaN"},
		{"negative", func(o *Options) { o.Tolerances = neg }, "Tolerances.Cost: -0.1"},
		{"health", func(o *Options) { o.Engine = &EngineSpec{Start: "true", HealthTimeout: -time.Second} }, "health timeout"},
		{"repeat", func(o *Options) { o.Repeat = -1 }, "repeat -1"},
		{"repeat past the cap", func(o *Options) { o.Repeat = 1_000_000_000 }, "repeat 1000000000"},
	} {
		out := filepath.Join(dir, c.name)
		opt := Options{Candidates: candidates(1), Trace: filepath.Join(dir, "none.csv"), Replay: good, Out: out, Tolerances: DefaultTolerances()}
		c.edit(&opt)
		if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: Run created %s", c.name, out)
		}
	}
}

// The refit's summary names each run's step bias before and after.
func TestRefitPrintsStepBias(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	rr := &RefitResult{Out: "new.json", Parent: "old.json", OldRuns: 23, NewRuns: 2,
		StepBiasBefore: map[string]StepBias{"verify-rank02": {Decode: v(0.031)}, "verify-rank01": {Decode: v(-0.0794), Prompt: v(0.12)}},
		StepBiasAfter:  map[string]StepBias{"verify-rank01": {Decode: v(0.002), Prompt: v(-0.01)}, "verify-rank02": {Decode: v(0)}}}
	var b strings.Builder
	rr.Print(&b)
	want := `
    verify-rank01      -7.9% → +0.2%; +12.0% → -1.0%
    verify-rank02      +3.1% → +0.0%; — → —
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("refit summary:\n%s\nwant the lines%s", b.String(), want)
	}
	rr.MetricErrorAtSpeed = map[string]float64{"tpot_mean_s": 0.021}
	b.Reset()
	rr.Print(&b)
	want = "measured): tpot_mean_s 2.1%\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("refit summary:\n%s\nwant the lines%s", b.String(), want)
	}
}

// TestMeasureWarmsUpTheEngine: before the slice, the engine gets one
// request as long as the slice's longest request at every slot (2 × (60
// + 12) tokens, less the one it generates), then a short one, and neither
// is measured.
func TestMeasureWarmsUpTheEngine(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond, ITL: time.Millisecond, Record: true})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	opt := Options{Candidates: candidates(2), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: cfg,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusOK || c.Measured.Requests != 4 {
		t.Fatalf("candidate: %s (%s), %d requests measured", c.Status, c.Detail, c.Measured.Requests)
	}
	// Prompt tokens as the stub counts them (bytes + 20), in arrival
	// order; the text-model probes come first.
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, fmt.Sprintf("%d/%d", len(r.Prompt)+20, r.MaxTokens))
	}
	want := []string{"143/1", "64/8", "60/12", "60/12", "60/12", "60/12"}
	if len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
		t.Errorf("requests (prompt/max_tokens) %v, want them to end with %v", got, want)
	}
	for _, c := range []struct {
		k    Knobs
		s    sliceTokens
		want int
	}{
		{Knobs{MaxNumSeqs: 64, MaxModelLen: 4096}, sliceTokens{longest: 1000, total: 30000}, 4095},    // max_model_len
		{Knobs{MaxNumSeqs: 64, MaxModelLen: 131072}, sliceTokens{longest: 1000, total: 30000}, 29999}, // the whole slice
		{Knobs{MaxNumSeqs: 2, MaxModelLen: 4096}, sliceTokens{longest: 1000, total: 30000}, 1999},     // every slot
		{Knobs{BatchSize: 3}, sliceTokens{longest: 100, total: 30000}, 299},                           // a static batch
	} {
		if got := warmupTokens(c.k, c.s); got != c.want {
			t.Errorf("warmupTokens(%+v, %+v) = %d, want %d", c.k, c.s, got, c.want)
		}
	}
}

// TestWarmUpLogsARefusedRequest: an engine that refuses the long warm-up
// request (longer than it takes) costs a log line, not the candidate.
func TestWarmUpLogsARefusedRequest(t *testing.T) {
	srv := replaytest.New(replaytest.Options{TTFT: time.Millisecond, ITL: time.Millisecond, Status: http.StatusBadRequest,
		Fault: func(n int) replaytest.Fault {
			if n == 0 {
				return replaytest.Status
			}
			return replaytest.OK
		}})
	t.Cleanup(srv.Close)
	cfg := replay.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = srv.BaseURL(), "stub", "SERVESIM_NO_KEY"
	cfg.Text = replay.TextModel{TokensPerByte: 1, Overhead: 20}
	var log bytes.Buffer
	if err := warmUp(t.Context(), cfg, 5000, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "warm-up request of 5000 prompt tokens failed (not measured)") || strings.Count(log.String(), "\n") != 1 {
		t.Errorf("log %q: want one line for the refused 5000-token request", log.String())
	}
}

// The whole group gets the stop timeout to shut down. The leader of a
// multi-command line ("source venv/bin/activate && vllm serve ...") is a
// shell that exits on SIGTERM at once; the engine it started must still
// finish its graceful shutdown (here 1 s, within the 5 s timeout).
func TestStopLetsEngineShutDownGracefully(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("D", dir)
	start := `touch "$D/up"; sh -c 'trap "sleep 1; rm -f \"$D/up\"; echo clean > \"$D/clean\"; exit 0" TERM; while :; do sleep 0.1; done'; true`
	spec := EngineSpec{Start: start, HealthURL: fakeEngine(t, dir), HealthTimeout: 5 * time.Second, StopTimeout: 5 * time.Second}
	e, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	stopErr := e.Stop(context.Background())
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "clean")); err != nil {
		t.Errorf("engine was killed before finishing its SIGTERM shutdown (stop err: %v)", stopErr)
	}
	os.Remove(filepath.Join(dir, "up"))
}

// A prompt prefix given without a text model (--prompt-prefix alone) is
// kept in the text model calibrated for the candidates.
func TestRunKeepsPromptPrefixWhenCalibrating(t *testing.T) {
	dir := t.TempDir()
	cfg := stubReplay(t)
	cfg.Text = replay.TextModel{Prefix: 7}
	opt := Options{Candidates: candidates(2), Trace: writeTrace(t, dir, 3, 10*time.Millisecond), Replay: cfg,
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Candidates[0]; c.Status != StatusOK {
		t.Fatalf("candidate: %s (%s)", c.Status, c.Detail)
	}
	if tm := res.TextModel; tm.Prefix != 7 || tm.TokensPerByte == 0 {
		t.Errorf("text model %+v: want the calibrated model with Prefix 7", tm)
	}
}

// An engine started with an API key answers its /models 401 without one:
// the health polls send the key the replay sends, so such an engine gets
// healthy, and one already running is seen.
func TestHealthPollsSendTheKey(t *testing.T) {
	dir := t.TempDir()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-health" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "up")); err != nil {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(hs.Close)
	t.Setenv("HEALTH_TEST_KEY", "sk-health")
	t.Setenv("D", dir)
	spec := EngineSpec{Start: `touch "$D/up"; sleep 30`, HealthURL: hs.URL + "/v1/models", HealthKeyEnv: "HEALTH_TEST_KEY",
		HealthTimeout: 5 * time.Second, StopTimeout: 2 * time.Second}
	e, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatalf("an engine that wants a key never got healthy: %v", err)
	}
	// It is up: a second start sees it.
	if _, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log2")); err == nil || !strings.Contains(err.Error(), "already answers") {
		t.Errorf("second start: err = %v, want a refusal", err)
	}
	os.Remove(filepath.Join(dir, "up"))
	e.Stop(context.Background())
	if Healthy(context.Background(), hs.URL+"/v1/models", "") {
		t.Error("healthy without the key")
	}
}
