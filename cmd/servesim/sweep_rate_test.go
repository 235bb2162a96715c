package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace whose requests all arrive at one instant has no arrival rate:
// the sweep says it is not measured rather than printing NaN.
func TestSimulateSweepTraceWithoutARate(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "burst.csv")
	os.WriteFile(tr, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,10\n0,200,20\n"), 0o644)
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "NaN") || !strings.Contains(out, "(2 requests, — req/s at scale 1)") {
		t.Errorf("output:\n%s", out)
	}
}

// The request count is that of the rate: warm-up rows are counted apart.
func TestSimulateSweepTraceCountsWarmupApart(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "warm.csv")
	os.WriteFile(tr, []byte("arrival_ns,prompt_tokens,output_tokens,warmup\n0,100,10,true\n0,100,10,true\n1000000000,100,10,false\n2000000000,200,20,false\n3000000000,200,20,false\n"), 0o644)
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "(3 requests, 1.00 req/s at scale 1, and 2 warm-up requests)") {
		t.Errorf("output:\n%s", out)
	}
}

// A P99 limit over a trace of fewer than 100 requests is their slowest:
// the sweep warns that one slow request breaks it.
func TestSimulateSweepWarnsOfP99OverFewRequests(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "few.csv")
	os.WriteFile(tr, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,10\n1000000000,200,20\n2000000000,200,20\n"), 0o644)
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "warning: the SLO's P99 over the trace's 3 requests") {
		t.Errorf("output:\n%s", out)
	}
}
