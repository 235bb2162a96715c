package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/sim/sweep"
)

// An interrupted verify ends on the interrupt, and the table leaves the
// count of metrics outside tolerance to the exit message: the message
// carries it.
func TestVerifyInterruptedSaysToleranceFailures(t *testing.T) {
	dir := t.TempDir()
	// One candidate's run, probes and warm-up included, counted first:
	// the second candidate is interrupted at its first request.
	one := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond})
	defer one.Close()
	cands, trace := oneCandidate(t, dir)
	args := []string{"verify", "--trace", trace, "--api-key-env", "SERVESIM_NO_KEY", "--model", "stub",
		"--tokens-per-byte", "1", "--prompt-overhead", "20"}
	if _, err := run(t, append(args, "--candidates", cands, "--base-url", one.BaseURL(), "--out", filepath.Join(dir, "one"))...); err == nil {
		t.Fatal("verify against the stub: no error; want metrics outside tolerance (the roofline prior is not the stub's timing)")
	}
	perCandidate := one.Count()

	data, _ := json.Marshal(sweep.CandidateFile{Candidates: []sweep.Candidate{
		{Rank: 1, Label: "a", Plan: tinyPlan, RateScale: 1}, {Rank: 2, Label: "b", Plan: tinyPlan, RateScale: 1}}})
	two := writeFile(t, dir, "two.json", string(data))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled atomic.Bool
	srv := replaytest.New(replaytest.Options{TTFT: 2 * time.Millisecond, ITL: 2 * time.Millisecond, Fault: func(n int) replaytest.Fault {
		if n > perCandidate && cancelled.CompareAndSwap(false, true) {
			cancel()
		}
		return replaytest.OK
	}})
	defer srv.Close()
	app := newApp()
	var buf bytes.Buffer
	app.Writer, app.ErrWriter = &buf, &buf
	err := app.RunContext(ctx, append([]string{"servesim"}, append(args, "--candidates", two, "--base-url", srv.BaseURL(), "--out", filepath.Join(dir, "two"))...))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled\n%s", err, buf.String())
	}
	if !strings.Contains(err.Error(), "outside tolerance") {
		t.Errorf("err = %v, want it to count the metrics outside tolerance\n%s", err, buf.String())
	}
}
