package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A shard written into the --out of an earlier unsharded sweep takes that
// sweep's results and candidates away: verify or report would read them
// as this sweep's, and only 'sweep merge' writes the whole sweep's now.
func TestSimulateSweepShardRemovesAnEarlierWholeSweep(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--top", "3", "--workers", "2", "-q"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", "0/2", "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sweep.parquet", "candidates.json"} {
		stale := filepath.Join(dir, name)
		if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(out, "removed "+stale) {
			t.Errorf("%s of the earlier sweep: %v, want it removed and said so:\n%s", name, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep-shard-0-of-2.parquet")); err != nil {
		t.Errorf("the shard's results: %v", err)
	}

	// An input named as the whole sweep's results is refused, not removed.
	in := filepath.Join(dir, "sweep.parquet")
	csv, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, csv, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, "simulate", "--trace", in, "--sweep", smallSweep, "--out", dir, "--shard", "1/2", "-q")
	if err == nil || !strings.Contains(err.Error(), "would overwrite the input --trace") {
		t.Errorf("a shard whose trace is OUT/sweep.parquet: %v, want it refused", err)
	}
	if _, err := os.Stat(in); err != nil {
		t.Errorf("the trace: %v", err)
	}
}
