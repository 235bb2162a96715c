package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An -o the report cannot be written as (no .html or .md) is refused
// before the inputs are read, as a missing folder is, not after the work.
func TestReportRefusesAnUnknownExtensionFirst(t *testing.T) {
	dir := t.TempDir()
	_, err := run(t, "report", filepath.Join(dir, "missing.parquet"), "-o", filepath.Join(dir, "r.pdf"))
	if err == nil || !strings.Contains(err.Error(), ".pdf") {
		t.Errorf("report -o r.pdf: %v, want an error naming the extension", err)
	}
}
