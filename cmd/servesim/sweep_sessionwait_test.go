package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
)

// A sweep with --session-wait simulates each config as simulate
// --session-wait does: its figures are the single runs', they differ from
// the unheld sweep's, and the results and candidates record the turnaround.
func TestSimulateSweepSessionWait(t *testing.T) {
	dir := t.TempDir()
	tr := synthTrace(t, dir, "chat.csv", "--turns", "fixed:3", "--think-time", "0.05", "--requests", "60", "--rate", "4",
		"--prompt", "fixed:400", "--output", "fixed:100")
	spec := continuousSweep(t, dir, "chat.toml", `"batch.max_num_seqs" = [2, 16]
rate_scale = [1]`)
	held, plain := filepath.Join(dir, "held"), filepath.Join(dir, "plain")
	heldOut, err := run(t, "simulate", "--trace", tr, "--sweep", spec, "--out", held, "--top", "2", "--session-wait", "--closed-loop-gap", "2ms", "-q")
	if err != nil {
		t.Fatal(err)
	}
	plainOut, err := run(t, "simulate", "--trace", tr, "--sweep", spec, "--out", plain, "-q")
	if err != nil {
		t.Fatal(err)
	}
	// The console says the turns were held, as simulate --session-wait does.
	if want := "session wait: each session's turns held until the previous one ended, then a 2ms turnaround"; !strings.Contains(heldOut, want) || strings.Contains(plainOut, "session wait") {
		t.Errorf("output with --session-wait:\n%s\nwithout:\n%s\nwant %q in the first only", heldOut, plainOut, want)
	}
	res, err := sweep.ReadFile(filepath.Join(held, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	unheld, err := sweep.ReadFile(filepath.Join(plain, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Meta.Settings, "session_wait=2ms") || strings.Contains(unheld.Meta.Settings, "session_wait") {
		t.Errorf("settings %q and, unheld, %q: want session_wait=2ms in the first only", res.Meta.Settings, unheld.Meta.Settings)
	}
	cands, err := readCandidates(filepath.Join(held, "candidates.json"))
	if err != nil || !strings.Contains(cands.Settings, "session_wait=2ms") {
		t.Errorf("candidates: %v, settings %q: want session_wait=2ms", err, cands.Settings)
	}
	if len(res.Rows) != 2 || len(unheld.Rows) != 2 {
		t.Fatalf("%d and %d rows, want 2", len(res.Rows), len(unheld.Rows))
	}
	for i, r := range res.Rows {
		if r.Outcome != "ok" {
			t.Fatalf("config %d: %s %s", r.Index, r.Outcome, r.Note)
		}
		cfg := filepath.Join(dir, fmt.Sprintf("c%d.toml", i))
		os.WriteFile(cfg, []byte(r.PlanTOML), 0o644)
		out, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--json", "--session-wait", "--closed-loop-gap", "2ms")
		if err != nil {
			t.Fatal(err)
		}
		var single []struct{ Summary sim.Summary }
		if err := json.Unmarshal([]byte(out), &single); err != nil || len(single) != 1 {
			t.Fatalf("simulate --json: %v\n%s", err, out)
		}
		s := single[0].Summary
		if r.E2EP99 != s.E2E.P99 || r.TTFTP99 != s.TTFT.P99 || r.ReqPerSec != s.ReqPerSec || r.DeviceSeconds != s.DeviceSeconds {
			t.Errorf("config %d: sweep e2e p99 %g ttft p99 %g req/s %g device-s %g; simulate --session-wait %g %g %g %g",
				r.Index, r.E2EP99, r.TTFTP99, r.ReqPerSec, r.DeviceSeconds, s.E2E.P99, s.TTFT.P99, s.ReqPerSec, s.DeviceSeconds)
		}
		if u := unheld.Rows[i]; u.ReqPerSec == r.ReqPerSec {
			t.Errorf("config %d: %g req/s with turns held and without: want holding to change it", r.Index, r.ReqPerSec)
		}
	}
}

// A sweep holding turns over a spec with a [cluster] config is refused
// as simulate --session-wait refuses a cluster plan: a usage error (exit
// 2) naming the flag, before any config runs, and no --out left behind.
func TestSimulateSweepSessionWaitClusterUsage(t *testing.T) {
	dir := t.TempDir()
	tr := synthTrace(t, dir, "chat.csv", "--turns", "fixed:2", "--think-time", "0.05", "--requests", "20", "--rate", "4",
		"--prompt", "fixed:100", "--output", "fixed:20")
	spec := continuousSweep(t, dir, "cluster.toml", `"cluster.replicas" = [1, 2]
"cluster.router" = ["round_robin"]`)
	out := filepath.Join(dir, "out")
	msg, err := run(t, "simulate", "--trace", tr, "--sweep", spec, "--out", out, "--session-wait", "-q")
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "--session-wait") || !strings.Contains(err.Error(), "replicas=2") {
		t.Errorf("err = %v (exit %d), output %q: want exit 2 naming --session-wait and the cluster config", err, exitCode(err), msg)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("--out %s: %v, want it not created", out, statErr)
	}
}

// Over a trace whose sessions have one turn each, session waiting holds
// nothing, and the console says so rather than that turns were held.
func TestSimulateSweepSessionWaitNothingHeld(t *testing.T) {
	dir := t.TempDir()
	tr := synthTrace(t, dir, "single.csv", "--turns", "fixed:1", "--requests", "20", "--rate", "4",
		"--prompt", "fixed:100", "--output", "fixed:20")
	spec := continuousSweep(t, dir, "one.toml", "rate_scale = [1]")
	out, err := run(t, "simulate", "--trace", tr, "--sweep", spec, "--session-wait", "-q")
	if want := "session wait: no turn held: no session of the trace has two turns sent"; err != nil || !strings.Contains(out, want) {
		t.Errorf("err %v, output:\n%s\nwant %q", err, out, want)
	}
}

// synthTrace writes trace synth's trace of args to dir/name.
func synthTrace(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if _, err := run(t, append(append([]string{"trace", "synth"}, args...), path)...); err != nil {
		t.Fatal(err)
	}
	return path
}

// continuousSweep writes to dir/name a sweep spec over the continuous
// batching default whose [sweep] table holds table, with an SLO every
// run meets.
func continuousSweep(t *testing.T, dir, name, table string) string {
	t.Helper()
	base := filepath.Join(cwd(t), "defaults/4-continuous.toml")
	return writeFile(t, dir, name, fmt.Sprintf("base = %q\n[sweep]\n%s\n[slo]\ne2e_p99_ms = 600000\n", base, table))
}
