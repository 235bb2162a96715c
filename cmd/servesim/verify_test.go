package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

func TestParseSlice(t *testing.T) {
	for in, want := range map[string]verify.Slice{
		"":         {},
		"all":      {}, // as verify.json's slice says
		"40":       {Head: 40},
		"0s:60s":   {To: 60 * time.Second},
		"10s:":     {From: 10 * time.Second},
		"1m:1m30s": {From: time.Minute, To: 90 * time.Second},
	} {
		got, err := parseSlice(in)
		if err != nil || got != want {
			t.Errorf("parseSlice(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := parseSlice(got.String()); err != nil || back != got {
			t.Errorf("parseSlice(%q) = %+v, written %q, reads back as %+v, %v", in, got, got.String(), back, err)
		}
	}
	for _, bad := range []string{"0", "-3", "x", "60s:10s", "a:b", "0s:-5s", "10s:0s", "0s:0s", "-1s:"} {
		if _, err := parseSlice(bad); err == nil {
			t.Errorf("parseSlice(%q): no error", bad)
		}
	}
}

// A --slice of ":" gives neither end of a window: the whole trace is
// "all" (or no --slice), so it is refused with the forms --slice takes
// rather than read as a window that keeps everything.
func TestParseSliceRefusesAWindowWithNoEnds(t *testing.T) {
	for _, in := range []string{":"} {
		sl, err := parseSlice(in)
		if err == nil || !strings.Contains(err.Error(), "want N (requests), FROM:TO or FROM: (durations") || !strings.Contains(err.Error(), "all") {
			t.Errorf("parseSlice(%q) = %+v, %v; want an error naming N, FROM:TO, FROM: and all", in, sl, err)
		}
	}
}

// A --slice of N requests is digits: a sign, which strconv.Atoi takes, is
// refused, and a number past an int is out of range, each saying what is
// expected.
func TestParseSliceDigits(t *testing.T) {
	for in, want := range map[string]string{
		"+40":                  `verify: --slice "+40": want N (requests) or FROM:TO`,
		"-0":                   `verify: --slice "-0": want N (requests) or FROM:TO`,
		"99999999999999999999": fmt.Sprintf("verify: --slice 99999999999999999999: out of range: want at most %d requests", math.MaxInt),
	} {
		if sl, err := parseSlice(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseSlice(%q) = %+v, %v, want an error containing %s", in, sl, err, want)
		}
	}
}

// TestVerifyCLI runs verify against the stub server with a fake engine
// command (one candidate fails to start) and checks the exit status,
// verify.json and the table, and that the API key is in no output.
func TestVerifyCLI(t *testing.T) {
	saved := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = saved }()
	dir := t.TempDir()
	const key = "sk-servesim-VERIFYLEAK-5c2d"
	t.Setenv("SERVESIM_VERIFY_KEY", key)
	srv := replaytest.New(replaytest.Options{APIKey: key, TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	up := filepath.Join(dir, "up")
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(up); err != nil {
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer health.Close()
	cf := sweep.CandidateFile{}
	for i, n := range []int{4, 2} {
		plan := strings.Replace(tinyPlan, "max_num_seqs = 4", fmt.Sprintf("max_num_seqs = %d", n), 1)
		cf.Candidates = append(cf.Candidates, sweep.Candidate{Rank: int64(i + 1), Index: int64(i), Label: fmt.Sprintf("seqs=%d", n), Plan: plan, RateScale: 2})
	}
	data, _ := json.Marshal(cf)
	cands := filepath.Join(dir, "candidates.json")
	os.WriteFile(cands, data, 0o644)
	in := filepath.Join(dir, "in.parquet")
	if _, err := run(t, "trace", "synth", "--requests", "30", "--arrival", "poisson", "--rate", "20", "--seed", "3",
		"--prompt", "uniform:32:64", "--output", "fixed:8", in); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	engineCmd := fmt.Sprintf(`{{if eq .MaxNumSeqs 2}}exit 7; {{end}}trap 'rm -f %s; exit 0' TERM; touch %s; sleep 300 & wait`, up, up)
	// The URLs' passwords and queries are used, never written.
	text, err := run(t, "verify", "--candidates", cands, "--trace", in, "--slice", "20", "--base-url", secretURL(t, srv.BaseURL()), "--model", "stub",
		"--api-key-env", "SERVESIM_VERIFY_KEY", "--engine-cmd", engineCmd, "--health-url", secretURL(t, health.URL), "--health-timeout", "5s",
		"--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", out)
	var ec cli.ExitCoder
	if !errors.As(err, &ec) || (ec.ExitCode() != exitToleranceFailed && ec.ExitCode() != exitIncomplete) {
		t.Fatalf("err = %v, want exit status 4 or 5\n%s", err, text)
	}
	for _, s := range []string{"ENGINE_START_FAILED", "exit status 7", "throughput_out_tok_s", "verify.json"} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	// What verify writes, report --verify reads back.
	res, err := verify.LoadResult(filepath.Join(out, "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 2 || res.Candidates[0].Status != verify.StatusOK || res.Candidates[1].Status != verify.StatusStartFailed ||
		res.Requests != 20 || res.Candidates[0].TimeScale != 0.5 || res.Incomplete != 1 {
		t.Errorf("verify.json: %+v", res)
	}
	if (res.ToleranceFailures > 0) != (ec.ExitCode() == exitToleranceFailed) {
		t.Errorf("%d tolerance failures, exit status %d", res.ToleranceFailures, ec.ExitCode())
	}
	sim, _, err := traces.ReadAll(res.Candidates[0].SimTrace)
	if err != nil {
		t.Fatal(err)
	}
	if res.ToolVersion != version || sim.ToolVersion != version {
		t.Errorf("tool_version %q in verify.json, %q in the simulated trace: want this build's %q", res.ToolVersion, sim.ToolVersion, version)
	}
	if want := strings.Replace(srv.BaseURL(), "http://", "http://xxxxx@", 1); res.BaseURL != want {
		t.Errorf("verify.json base_url %q, want %q", res.BaseURL, want)
	}
	checkNoURLSecret(t, "verify", text, dir)
	// The key is sent, never written: verify.json, the traces, the engine
	// logs and the output.
	if n := replaytest.CheckNoSecret(t, "verify", text, dir, "VERIFYLEAK"); n < 6 {
		t.Errorf("only %d files written", n)
	}
	// --refit without --profile is a usage error.
	if _, err := run(t, "verify", "--candidates", cands, "--trace", in, "--base-url", srv.BaseURL(), "--model", "stub", "--refit"); !errors.As(err, &ec) || ec.ExitCode() != 2 {
		t.Errorf("--refit without --profile: %v", err)
	}
}

// Bad replay settings, tolerances, --top and --health-timeout are usage
// errors found before any candidate is simulated or replayed.
func TestVerifyChecksSettingsFirst(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base-url", "ftp://x"}, "--base-url"},
		{[]string{"--tol-p99", "NaN"}, "verify: --tol-p99: NaN: want a finite fraction ≥ 0"},
		{[]string{"--tol-ttft", "-0.1"}, "verify: --tol-ttft: -0.1: want a finite fraction ≥ 0"},
		{[]string{"--tol-cost", "Inf"}, "verify: --tol-cost: +Inf: want a finite fraction ≥ 0"},
		{[]string{"--top", "-1"}, "--top"},
		{[]string{"--health-timeout", "0s", "--engine-cmd", "true"}, "--health-timeout"},
		{[]string{"--health-timeout", "-5s", "--engine-cmd", "true"}, "--health-timeout"},
	} {
		args := append([]string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
			"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out}, c.args...)
		text, code, err := runCode(t, args...)
		if code != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("verify %v: exit %d, err %v; want exit 2 naming %s\n%s", c.args, code, err, c.want, text)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("verify %v created %s", c.args, out)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// testdata/candidates.json is what simulate --sweep small.toml --top 3
// wrote on a 30-request trace.
func TestParseCandidates(t *testing.T) {
	cf, err := readCandidates(filepath.Join("testdata", "candidates.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Candidates) != 3 || cf.Candidates[2].Rank != 3 || cf.Candidates[0].Predicted.ArrivalRate == nil {
		t.Errorf("%+v", cf)
	}
	real, _ := os.ReadFile(filepath.Join("testdata", "candidates.json"))
	for _, c := range []struct{ data, want string }{
		{``, "c.json: not a candidates.json (simulate --sweep --top N): empty"},
		{`{}`, "c.json: no candidates (did any config meet the SLO?)"},
		{`{"candidates": []}`, "c.json: no candidates"},
		{`[]`, "c.json: not a candidates.json (simulate --sweep --top N): line 1: want a JSON object, got JSON array"},
		{`{"candidates": [{"rank": 1, "rnak": 2}]}`, `c.json: not a candidates.json (simulate --sweep --top N): line 1: unknown field "rnak"`},
		{"{\n\"candidates\": [{\"rank\": \"1\"}]}", "c.json: not a candidates.json (simulate --sweep --top N): line 2: candidates.rank: want int64, got JSON string"},
		{string(real[:len(real)/2]), "c.json: not a candidates.json (simulate --sweep --top N): truncated"},
		{string(real) + "{}", "c.json: not a candidates.json (simulate --sweep --top N): line 84: more data after the JSON value"},
		{`{"candidates": [{"rank": 0}]}`, "c.json: candidates[0].rank = 0: want ≥ 1"},
		{`{"candidates": [{"rank": 2}, {"rank": 2}]}`, "c.json: candidates[1].rank = 2: candidates[0] has that rank too"},
		{`{"candidates": [{"rank": 1, "index": -1}]}`, "c.json: candidates[0].index = -1: want ≥ 0"},
	} {
		_, err := parseCandidates([]byte(c.data), "c.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60q: err = %v, want %q", c.data, err, c.want)
		}
	}
}

// Two candidates with one rank would write the same rankNN files: verify
// refuses the file before it starts anything.
func TestVerifyRefusesDuplicateRanks(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands := writeFile(t, dir, "candidates.json", `{"candidates": [{"rank": 1, "label": "a", "rate_scale": 1}, {"rank": 1, "label": "b", "rate_scale": 1}]}`)
	out := filepath.Join(dir, "out")
	_, code, err := runCode(t, "verify", "--candidates", cands, "--trace", writeFile(t, dir, "in.csv", smallCSV),
		"--base-url", url, "--model", "m", "--out", out)
	if code == 0 || err == nil || !strings.Contains(err.Error(), cands+": candidates[1].rank = 1") {
		t.Errorf("exit status %d, err = %v", code, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output directory was made: %v", err)
	}
}

// --refit-out in a directory that does not exist is a usage error found
// before any candidate runs, not when the refitted profile is saved at
// the end.
func TestVerifyChecksRefitOutFirst(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	prof := filepath.Join("..", "..", "calibrate", "testdata", "profile_v1.json")
	bad := filepath.Join(dir, "nowhere", "refit.json")
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out, "--profile", prof, "--refit", "--refit-out", bad)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--refit-out") {
		t.Errorf("exit %d, err %v; want exit 2 naming --refit-out\n%s", code, err, text)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("verify created %s", out)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// oneCandidate writes candidates.json (one candidate on tinyPlan) and
// in.csv (smallCSV) in dir.
func oneCandidate(t *testing.T, dir string) (cands, trace string) {
	t.Helper()
	data, err := json.Marshal(sweep.CandidateFile{Candidates: []sweep.Candidate{{Rank: 1, Label: "a", Plan: tinyPlan, RateScale: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "candidates.json", string(data)), writeFile(t, dir, "in.csv", smallCSV)
}

// An output of verify that names one of its inputs is a usage error found
// before any candidate runs: --refit-out the --profile itself would
// replace the calibrated parent profile (which the refit's lineage and
// verify.json cite by path and SHA-256) with its refit, and an --out
// directory that holds the --trace as input.parquet would replace the
// trace with its slice.
func TestVerifyOutputsMustNotOverwriteInputs(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	data := testProfile(t)
	prof := writeFile(t, dir, "p.json", data)
	out := filepath.Join(dir, "out")
	base := []string{"verify", "--candidates", cands, "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--tokens-per-byte", "1", "--profile", prof}
	inOut := filepath.Join(dir, "o2")
	os.Mkdir(inOut, 0o755)
	trInOut := filepath.Join(inOut, "input.parquet")
	if _, err := run(t, "trace", "convert", tr, trInOut); err != nil {
		t.Fatal(err)
	}
	trData, _ := os.ReadFile(trInOut)
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--trace", tr, "--out", out, "--refit", "--refit-out", prof}, "--refit-out"},
		{[]string{"--trace", trInOut, "--out", inOut, "--slice", "2"}, "--out"},
	} {
		text, code, err := runCode(t, append(base, tc.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.flag) || !strings.Contains(err.Error(), "would overwrite the input") {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s and the input\n%s", tc.args, code, err, tc.flag, text)
		}
	}
	if got, _ := os.ReadFile(prof); string(got) != data {
		t.Error("the profile was changed")
	}
	if got, _ := os.ReadFile(trInOut); string(got) != string(trData) {
		t.Error("the trace was changed")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("verify created %s", out)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// Settings that cannot work are refused before any engine starts or any
// request is sent: a key with a line break (every health check and request
// would fail without saying why), and flags whose flag they need is absent.
func TestVerifyRefusesUnusableSettings(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	t.Setenv("SERVESIM_NL_KEY", "sk-servesim-NLKEY-0123456789\n")
	base := []string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--tokens-per-byte", "1", "--out", filepath.Join(dir, "out")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--api-key-env", "SERVESIM_NL_KEY"}, "$SERVESIM_NL_KEY holds a control character"},
		{[]string{"--api-key-env", "SERVESIM_NO_KEY", "--gpu-interval", "1s"}, "--gpu-interval needs --gpu"},
		{[]string{"--api-key-env", "SERVESIM_NO_KEY", "--health-timeout", "5s"}, "need --engine-cmd"},
	} {
		text, code, err := runCode(t, append(base, tc.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 saying %q\n%s", tc.args, code, err, tc.want, text)
		}
		if err != nil && strings.Contains(err.Error(), "NLKEY") {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// --refit-out naming the --out directory itself (not yet made) would be
// refused only when the refit is saved, after every candidate ran: verify
// makes that directory first. It is a usage error found before any run.
func TestVerifyRefitOutAtOutDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	prof := cpuProfile(t, dir) // on the candidate's device, so that nothing else refuses the run
	out := filepath.Join(dir, "out")
	text, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--tokens-per-byte", "1", "--profile", prof, "--out", out, "--refit", "--refit-out", out)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--refit-out") {
		t.Errorf("exit %d, err %v; want exit 2 naming --refit-out\n%s", code, err, text)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// A slice that holds no requests is named once as verify's, and leaves
// no output directory behind.
func TestVerifyEmptySliceSaysSoOnce(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	_, code, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out, "--slice", "10s:")
	if code != 1 || err == nil || !strings.Contains(err.Error(), "holds no requests") || strings.Contains(err.Error(), "verify: verify:") {
		t.Errorf("exit %d, err %v; want exit 1 saying once that the slice holds no requests", code, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s: %v; want it not created", out, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests sent; want none", n)
	}
}
