package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unsharded sweep run into a folder leaves the shards of an earlier
// sweep there. A merge of those shards into the folder's sweep.parquet
// would replace the newer sweep's results with the older one's: it is
// refused, naming both files. The same sweep's results may be replaced.
func TestSweepMergeRefusesShardsOlderThanOUT(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", s, "-q", "--workers", "2"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "sweep-shard-0-of-2.parquet"), filepath.Join(dir, "sweep-shard-1-of-2.parquet")
	whole := filepath.Join(dir, "sweep.parquet")
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--knee-p99-pct", "40", "-q", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	fresh, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(t, "sweep", "merge", whole, a, b)
	if err == nil || !strings.Contains(err.Error(), whole) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("merge of older shards over a newer sweep's results: %v, want it refused naming %s and %s", err, whole, a)
	}
	if now, _ := os.ReadFile(whole); !bytes.Equal(now, fresh) {
		t.Error("a refused merge changed the newer sweep's results")
	}

	// Merged elsewhere, the shards merge as before.
	if _, err := run(t, "sweep", "merge", filepath.Join(t.TempDir(), "sweep.parquet"), a, b); err != nil {
		t.Errorf("merge into another folder: %v", err)
	}
	// The same sweep run unsharded: the merge rewrites its results.
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "-q", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "sweep", "merge", whole, a, b); err != nil {
		t.Errorf("merge over the same sweep's results: %v", err)
	}
}

// A merge named other than sweep.parquet writes (or, without --top,
// removes) the candidates.json beside it, where a sweep.parquet of its own
// may lie: the merge says the candidates are not that file's.
func TestSweepMergeWarnsOfTheSweepBesideOUT(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--top", "3", "-q", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	shards := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", shards, "--shard", s, "-q", "--workers", "2"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(shards, "sweep-shard-0-of-2.parquet"), filepath.Join(shards, "sweep-shard-1-of-2.parquet")
	merged, whole := filepath.Join(dir, "merged.parquet"), filepath.Join(dir, "sweep.parquet")
	for _, top := range []string{"3", "0"} {
		out, err := run(t, "sweep", "merge", "--top", top, merged, a, b)
		if err != nil {
			t.Fatal(err)
		}
		warning := warningLine(out)
		if !strings.Contains(warning, filepath.Join(dir, "candidates.json")) || !strings.Contains(warning, whole) || !strings.Contains(warning, merged) {
			t.Errorf("merge --top %s into %s beside %s: want a warning naming candidates.json and both files:\n%s", top, merged, whole, out)
		}
	}
	out, err := run(t, "sweep", "merge", "--top", "3", whole, a, b)
	if err != nil || strings.Contains(out, "warning") {
		t.Errorf("merge into the folder's sweep.parquet: %v, want no warning:\n%s", err, out)
	}
}

// warningLine is the line of out that warns, or "".
func warningLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "warning: ") {
			return l
		}
	}
	return ""
}

// An unsharded run leaves an earlier sweep's shards in its --out (a shard
// run may still be writing them), and says they are not its own.
func TestSimulateSweepWarnsOfShardsLeftInOut(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", "1/2", "-q", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(dir, "sweep-shard-1-of-2.parquet")
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "-q", "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "warning: ") || !strings.Contains(out, shard) {
		t.Errorf("unsharded run beside %s: want a warning naming it:\n%s", shard, out)
	}
	if _, err := os.Stat(shard); err != nil {
		t.Errorf("the earlier shard: %v, want it left", err)
	}
}
