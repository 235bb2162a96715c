package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A folder without summary.json (a sweep's --out folder, say) is refused
// saying what a folder should be and what else can be given; the error was
// the bare "open DIR/summary.json: no such file or directory".
func TestLoadFolderWithoutSummarySaysWhatItWants(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sweep.parquet"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(t.Context(), traces.SLO{}, dir)
	if err == nil {
		t.Fatal("a folder without summary.json was accepted")
	}
	for _, want := range []string{dir + ": no summary.json", "simulate --out", "sweep results"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to mention %q", err, want)
		}
	}
}
