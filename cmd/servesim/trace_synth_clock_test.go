package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Sessions drawn past the trace's clock are refused naming --turns as
// the user typed it, flag before value, so the message reads as the
// command line does.
func TestSynthSessionsPastClockNamesTurnsFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	// Seed 1 draws two session gaps of mean 3.3e9 s that sum past 2^32 s,
	// though the fewest sessions' expected span fits.
	_, code, err := runCode(t, "trace", "synth", "--seed", "1", "--requests", "4", "--turns", "fixed:2",
		"--think-time", "1", "--rate", "3e-10", out)
	if code != 2 || err == nil {
		t.Fatalf("exit %d, err = %v; want exit 2", code, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "clock holds") || !strings.Contains(msg, "in sessions of --turns fixed:2") || strings.Contains(msg, "fixed:2 --turns") {
		t.Errorf("err = %q; want the drawn arrivals past the clock, in sessions of --turns fixed:2", msg)
	}
}

// Sessions whose next turn the think time put past the clock end early,
// so more of them must open: when their starts run past the clock too,
// the error names --think-time, which cut them short.
func TestSynthSessionsPastClockNamesThinkTime(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	// Seed 8: 3 sessions open within the clock (one each 2e9 s) and
	// every second turn, 4e9 s on average later, falls past it.
	_, code, err := runCode(t, "trace", "synth", "--seed", "8", "--requests", "4", "--turns", "fixed:2",
		"--think-time", "4e9", "--arrival", "constant", "--rate", "5e-10", out)
	if code != 2 || err == nil {
		t.Fatalf("exit %d, err = %v; want exit 2", code, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "3 sessions ended before their last turn, the next past the clock at --think-time 4e+09 s") {
		t.Errorf("err = %q; want the sessions --think-time cut short named", msg)
	}
}
