package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// sweepOfTrace writes fakeSweep's results as read from a trace of the
// given sha256.
func sweepOfTrace(t *testing.T, path, sha string) string {
	t.Helper()
	fakeSweep(t, path)
	res, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res.Meta.TraceSHA256 = sha
	if err := sweep.WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	return path
}

// A selector naming no run, or leaving several, is a usage error (exit
// status 2), as a flag value out of range is; it names the argument.
func TestCompareSelectorUsageError(t *testing.T) {
	dir := t.TempDir()
	sw := sweepOfTrace(t, filepath.Join(dir, "sweep.parquet"), "")
	for _, args := range [][]string{
		{sw + "#nosuch", sw + "#rank=1"},
		{sw + "#rank=0", sw + "#rank=1"},
		{sw + "#index=x", sw + "#rank=1"},
		{"--b", "nosuch", sw + "#rank=1", sw},
		{sw, sw + "#rank=1"}, // several configs: one must be named
	} {
		out, code, err := runCode(t, append([]string{"compare"}, args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), sw) {
			t.Errorf("compare %q: exit %d (%v), want 2 naming %s\n%s", args, code, err, sw, out)
		}
	}
}

// Two sweep rows from sweeps of different traces predict different
// workloads: compare warns as it does for runs fed different inputs.
func TestCompareWarnsOfSweepsOverDifferentTraces(t *testing.T) {
	dir := t.TempDir()
	a := sweepOfTrace(t, filepath.Join(dir, "a.parquet"), "aaaa")
	same := sweepOfTrace(t, filepath.Join(dir, "same.parquet"), "aaaa")
	other := sweepOfTrace(t, filepath.Join(dir, "other.parquet"), "bbbb")
	unknown := sweepOfTrace(t, filepath.Join(dir, "unknown.parquet"), "")
	for _, b := range []string{same, unknown} {
		if out, _ := compare(t, a+"#rank=1", b+"#rank=1"); strings.Contains(out, "warning") {
			t.Errorf("%s: want no warning, got\n%s", b, out)
		}
	}
	if out, _ := compare(t, a+"#rank=1", other+"#rank=1"); !strings.Contains(out, "warning: A and B were swept over different traces") {
		t.Errorf("want a warning that the sweeps' traces differ, got\n%s", out)
	}
}

// --slo counts goodput only from per-request traces; with none on either
// side compare says so rather than dropping the flag without a word.
func TestCompareSLOWithoutTraces(t *testing.T) {
	dir := t.TempDir()
	sw := sweepOfTrace(t, filepath.Join(dir, "sweep.parquet"), "")
	out, code := compare(t, sw+"#rank=1", sw+"#rank=1", "--slo", "ttft=2s")
	if code != 0 || !strings.Contains(out, "--slo ttft=2s counts nothing: neither A nor B has a per-request trace") {
		t.Errorf("exit %d, want 0 and a note that --slo counts nothing\n%s", code, out)
	}
}
