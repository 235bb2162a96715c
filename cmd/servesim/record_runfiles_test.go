package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// With --repeat, each run's block names the trace it wrote, and the spread
// over the runs follows: the files are NAME.runK.EXT, not --out's own
// name, and were named nowhere.
func TestRecordNamesEveryRunsTrace(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	out := filepath.Join(dir, "out.parquet")
	app := newApp()
	var stdout, stderr bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &stderr
	if err := app.RunContext(context.Background(), []string{"servesim", "record", "--trace", in, "--out", out,
		"--base-url", srv.BaseURL(), "--model", "m", "--tokens-per-byte", "1", "--prompt-overhead", "20", "--repeat", "3"}); err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	got := stdout.String()
	last := 0
	for _, want := range []string{
		"run 1: ", "wrote " + filepath.Join(dir, "out.run1.parquet") + "\n",
		"run 2: ", "wrote " + filepath.Join(dir, "out.run2.parquet") + "\n",
		"run 3: ", "wrote " + filepath.Join(dir, "out.run3.parquet") + "\n",
		"spread over runs",
	} {
		i := strings.Index(got[last:], want)
		if i < 0 {
			t.Fatalf("stdout lacks %q after byte %d:\n%s", want, last, got)
		}
		last += i + len(want)
	}
}
