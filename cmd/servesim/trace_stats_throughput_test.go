package main

import (
	"strings"
	"testing"
)

// trace stats of a measured run prints its throughput over the window
// record and report rate it over: the hand-made run's 6 successes and 19
// output tokens over 1.4 s; goodput only with --slo.
func TestTraceStatsThroughput(t *testing.T) {
	const measured = "../../traces/testdata/measured_run.jsonl"
	out, err := run(t, "trace", "stats", measured)
	if err != nil {
		t.Fatal(err)
	}
	const want = "throughput  4.2857 req/s, 13.6 output tok/s over 1.400 s"
	if line := strings.Join(strings.Fields(lineWith(out, "throughput")), " "); line != strings.Join(strings.Fields(want), " ") {
		t.Errorf("throughput line %q, want %q\n%s", line, want, out)
	}
	if strings.Contains(out, "goodput") {
		t.Errorf("no --slo, yet a goodput line:\n%s", out)
	}
	out, err = run(t, "trace", "stats", "--slo", "ttft=150ms", measured)
	if err != nil || !strings.Contains(out, "2.8571 req/s: 4 of 7 requests within ttft=150ms") {
		t.Errorf("--slo ttft=150ms: %v, want goodput 4 of 7 over 1.4 s\n%s", err, out)
	}
	in, err := run(t, "trace", "stats", "../../traces/testdata/azure2023_code_head200.csv")
	if err != nil || strings.Contains(in, "throughput") {
		t.Errorf("input trace: %v, want no throughput line\n%s", err, in)
	}
}
