package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A run's window may begin before the log's first traced step (a log cut
// at its start): its first step has no previous one to time it from.
func TestRunDecodeStepsFirstStepInWindow(t *testing.T) {
	steps := []ubatchLine{
		{t: 1_000_500_000, cells: 32, tokens: 1},
		{t: 1_000_510_000, cells: 33, tokens: 1},
		{t: 1_000_520_000, cells: 64, tokens: 40}, // a prompt: not a decode step
		{t: 1_000_530_000, cells: 34, tokens: 1},
	}
	cells, gaps := runDecodeSteps(steps, 1_000_000_000, 1_002_000_000)
	if want := []int64{32, 33, 34}; !slices.Equal(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
	if want := []int64{10_000}; !slices.Equal(gaps, want) {
		t.Errorf("gaps %v, want %v", gaps, want)
	}
}

// A line too long to read fails naming the file and the line.
func TestLinesNamesTheFileOfALongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	data := "SSKV t=1 n=2 used=0 head=0 ntok=1 0:1-1\n" + strings.Repeat("x", 2<<20) + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	err := lines(path, func(string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path+": line 2:") {
		t.Errorf("err = %v, want it to name %s: line 2", err, path)
	}
}

// A decision line that is not JSON fails naming the file and the line.
func TestReadDecisionWidthsNamesTheBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	data := `{"steps": 2, "decode_seqs": 1}` + "\n" + `{"steps": 1, "decode_seqs": x}` + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := readDecisionWidths(path)
	if err == nil || !strings.Contains(err.Error(), path+": line 2:") {
		t.Errorf("err = %v, want it to name %s: line 2", err, path)
	}
}

// The usage message names every form the command takes, so that a
// mistyped -decode, -widths or -model run says how to call it.
func TestUsageNamesEveryForm(t *testing.T) {
	for _, form := range []string{"CALIBRATE_LOG ENGINE_LOG", "-decode ENGINE_LOG", "-widths ENGINE_LOG DECISIONS", "-model PROFILE ENGINE_LOG"} {
		if !strings.Contains(usage, form) {
			t.Errorf("usage %q does not name %q", usage, form)
		}
	}
}

// A flag form given too few arguments is no calibrate log: it gets the
// usage message, not an error about a file named after the flag.
func TestFlagFormWithTooFewArgumentsIsMisuse(t *testing.T) {
	for _, args := range [][]string{{"-widths", "engine.log"}, {"-model", "profile.json"}, {"-decode"}, {"a.log"}} {
		if !misused(append([]string{"kvtrace"}, args...)) {
			t.Errorf("kvtrace %s: taken as CALIBRATE_LOG ENGINE_LOG, want the usage message", strings.Join(args, " "))
		}
	}
	if misused([]string{"kvtrace", "calibrate.log", "engine.log"}) {
		t.Error("kvtrace CALIBRATE_LOG ENGINE_LOG: taken as misuse")
	}
}
