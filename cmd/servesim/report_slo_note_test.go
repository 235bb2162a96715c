package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --slo counts goodput only from per-request traces; a report of sweep
// results alone says so, as compare does, rather than dropping the flag
// without a word.
func TestReportSLOWithoutTraces(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "sweep.parquet")
	fakeSweep(t, sw)
	out, code, err := runCode(t, "report", "--slo", "ttft=2s", "-o", filepath.Join(dir, "r.html"), sw)
	if code != 0 || !strings.Contains(out, "report: note: --slo ttft=2s counts nothing: no input is a per-request trace") {
		t.Errorf("exit %d (%v), want 0 and a note that --slo counts nothing\n%s", code, err, out)
	}
}
