package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// --session-wait holds sessions' turns in the live replay and in the
// prediction alike, with --session-wait-gap as the prediction's
// turnaround; verify.json and both traces record it.
func TestVerifySessionWait(t *testing.T) {
	dir := t.TempDir()
	srv := replaytest.New(replaytest.Options{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer srv.Close()
	cands, _ := oneCandidate(t, dir)
	tr := writeFile(t, dir, "sessions.csv", "arrival_ns,prompt_tokens,output_tokens,session_id\n0,100,20,a\n1000000,100,20,a\n2000000,100,20,b\n")
	out := filepath.Join(dir, "out")
	text, err := run(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", srv.BaseURL(), "--model", "stub",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--out", out,
		"--session-wait", "--session-wait-gap", "3ms", "--tol-throughput", "0", "--tol-ttft", "0", "--tol-tpot", "0", "--tol-p99", "0", "--tol-cost", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !strings.Contains(text, "warning: "+cands+" was swept with every turn at its arrival") {
		t.Errorf("no warning that the candidates were swept without session wait:\n%s", text)
	}
	res, err := verify.LoadResult(filepath.Join(out, "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionWait != "3ms" {
		t.Errorf("verify.json session_wait %q, want 3ms", res.SessionWait)
	}
	c := res.Candidates[0]
	live, _, err := traces.ReadAll(c.Trace)
	if err != nil {
		t.Fatal(err)
	}
	sim, _, err := traces.ReadAll(c.SimTrace)
	if err != nil {
		t.Fatal(err)
	}
	if live.Extra["replay.session_wait"] != "true" || sim.Extra["session_wait"] != "3ms" {
		t.Errorf("measured replay.session_wait %q, predicted session_wait %q: want true, 3ms",
			live.Extra["replay.session_wait"], sim.Extra["session_wait"])
	}
}

// --session-wait-gap is the turnaround of --session-wait's held turns:
// alone, or out of range, it is a usage error naming the flags.
func TestVerifySessionWaitGapIsChecked(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--session-wait-gap", "2ms"}, "verify: --session-wait-gap needs --session-wait"},
		{[]string{"--session-wait", "--session-wait-gap", "2m"}, "verify: --session-wait-gap 2m0s: want in [0, 1m0s], a client's turnaround"},
	} {
		args := append([]string{"verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
			"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out}, c.args...)
		text, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("verify %v: exit %d, err %v; want exit 2 with %q\n%s", c.args, code, err, c.want, text)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("verify %v created %s", c.args, out)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}
