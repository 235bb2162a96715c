//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
)

// A decision log that cannot be written fails the run with an error that
// names the --decisions file, not the hidden name it is written under.
func TestSimulateDecisionsWriteErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("arrival_ns,prompt_tokens,output_tokens\n")
	for i := range 200 {
		fmt.Fprintf(&csv, "%d,100,20\n", i*1000000)
	}
	tr := writeFile(t, dir, "t.csv", csv.String())
	cfg := basePlan(t, dir, "p.toml")
	d := filepath.Join(dir, "d.jsonl")
	var err error
	testfs.WithFileSizeLimit(t, 1<<10, func() {
		_, err = run(t, "simulate", "--trace", tr, "--config", cfg, "--decisions", d)
	})
	if err == nil {
		fi, _ := os.Stat(d)
		t.Fatalf("the run wrote its log past the file size limit: %d bytes", fi.Size())
	}
	if !strings.Contains(err.Error(), "--decisions: "+d+": ") || strings.Contains(err.Error(), ".tmp") || strings.Contains(err.Error(), ".staged") {
		t.Errorf("err = %v, want one naming --decisions: %s and no temporary file", err, d)
	}
}
