package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --drop-failed says how many rows it dropped and why, so the count
// imported can be checked against the source's.
func TestTraceImportDropFailedSaysHowMany(t *testing.T) {
	in := "../../traces/testdata/burstgpt_v1_first400.csv" // 17 of its 400 rows failed
	out, err := run(t, "trace", "import", "--drop-failed", in, filepath.Join(t.TempDir(), "t.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "imported 383 requests"; !strings.Contains(out, want) || !strings.Contains(out, "dropped 17 rows the source marks failed") {
		t.Errorf("output = %q, want %q and the 17 failed rows dropped", out, want)
	}
	out, err = run(t, "trace", "import", in, filepath.Join(t.TempDir(), "t.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "dropped") {
		t.Errorf("without --drop-failed: output = %q, want nothing dropped", out)
	}
}
