package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// TestRecordKilled runs `servesim record` as its own process, SIGKILLs it
// mid-run, and reads the partial file back as the README says: trace
// convert gives every row completed more than a second before the kill,
// marked partial, and trace stats reads it too (or, when the kill cut a
// message short, refuses it and names the conversion).
func TestRecordKilled(t *testing.T) {
	if os.Getenv("SERVESIM_RECORD_KILL_CHILD") != "" {
		t.Skip("child")
	}
	var mu sync.Mutex
	var done []time.Time
	srv := replaytest.New(replaytest.Options{ITL: 2 * time.Millisecond, Done: func(int) {
		mu.Lock()
		done = append(done, time.Now())
		mu.Unlock()
	}})
	defer srv.Close()
	dir := t.TempDir()
	var in []*traces.Request
	for i := range 5000 {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprintf("q%d", i), int64(i)*int64(2*time.Millisecond), 40, 8
		in = append(in, r)
	}
	trace := filepath.Join(dir, "in.parquet")
	if err := traces.WriteAll(trace, traces.Meta{}, in); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	args := []string{"record", "--base-url", srv.BaseURL(), "--model", "m", "--trace", trace, "--out", out,
		"--tokens-per-byte", "1", "--prompt-overhead", "20"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecordKilledChild$")
	cmd.Env = append(os.Environ(), "SERVESIM_RECORD_KILL_CHILD="+strings.Join(args, "\n"))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	partial := replay.PartialPath(out)
	deadline := time.Now().Add(20 * time.Second)
	for countPartial(partial) < 200 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no rows in %s after 20 s; child output:\n%s", partial, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1300 * time.Millisecond)
	killedAt := time.Now()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	margin := time.Second
	if raceEnabled {
		margin = 4 * time.Second
	}
	mu.Lock()
	before := 0
	for _, d := range done {
		if d.Before(killedAt.Add(-margin)) {
			before++
		}
	}
	mu.Unlock()
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a killed run left %s", out)
	}

	converted := filepath.Join(dir, "recovered.parquet")
	if msg, err := run(t, "trace", "convert", partial, converted); err != nil {
		t.Fatalf("trace convert of the partial file: %v\n%s", err, msg)
	}
	meta, got, err := traces.ReadAll(converted)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows completed more than %v before the kill; %d recovered", before, margin, len(got))
	if len(got) < before {
		t.Errorf("lost rows completed more than %v before the kill: %d < %d", margin, len(got), before)
	}
	if len(got) >= len(in) {
		t.Errorf("the run was not killed mid-way")
	}
	if s := meta.Extra["replay.status"]; s != "partial" {
		t.Errorf("replay.status = %q, want partial", s)
	}
	for i, r := range got {
		if !r.Succeeded() || r.UsageOutput != 8 {
			t.Fatalf("row %d: %+v", i, r)
		}
		if i > 0 && r.Arrival < got[i-1].Arrival {
			t.Fatalf("row %d arrives before row %d: not in arrival order", i, i-1)
		}
	}
	// A kill mid-flush cuts the last message short: stats then refuses the
	// file and points to the conversion, which keeps the whole rows.
	if msg, err := run(t, "trace", "stats", partial); err != nil && !strings.Contains(err.Error()+msg, "trace convert") {
		t.Errorf("trace stats of the partial file: %v\n%s", err, msg)
	}
}

// countPartial is how many whole rows the stream at path holds so far; a stream
// not yet created or not yet readable counts as none.
func countPartial(path string) int {
	n, _ := traces.CountTolerant(path)
	return n
}

// TestRecordKilledChild is the servesim process of TestRecordKilled.
func TestRecordKilledChild(t *testing.T) {
	args := os.Getenv("SERVESIM_RECORD_KILL_CHILD")
	if args == "" {
		t.Skip("run by TestRecordKilled")
	}
	if err := newApp().RunContext(context.Background(), append([]string{"servesim"}, strings.Split(args, "\n")...)); err != nil {
		t.Fatal(err)
	}
}
