package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The exit message gives the threshold as the percentage it is, however
// it was typed: "--threshold 10" is 10%, not "beyond 10".
func TestCompareExitMessageGivesThePercentage(t *testing.T) {
	dir := t.TempDir()
	base, slow := filepath.Join(dir, "base.parquet"), filepath.Join(dir, "slow.parquet")
	liveTrace(t, base, 100, 0, 200, 1200)
	liveTrace(t, slow, 100, 0, 240, 1200) // P99 TTFT +20%
	_, err := run(t, "compare", base, slow, "--threshold", "10")
	if err == nil || !strings.Contains(err.Error(), "beyond 10%") {
		t.Errorf("compare --threshold 10 of a +20%% change: err %v, want it to say \"beyond 10%%\"", err)
	}
}
