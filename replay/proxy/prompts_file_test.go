package proxy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
)

const earlierPrompts = `{"id":"0","endpoint":"completions","prompt":"an earlier session"}` + "\n"

// keepPromptsOver keeps prompts in a folder that already holds an earlier
// session's prompts file.
func keepPromptsOver(t *testing.T) func(*Config) {
	return func(c *Config) {
		c.KeepPrompts, c.FlushInterval = true, time.Second
		if err := os.WriteFile(PromptsPath(c.Out), []byte(earlierPrompts), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The earlier prompts file stays while a session runs (a session that
// crashes leaves it), and a session that ends well replaces it with its
// own prompts, every one of them: also those written since the last flush.
func TestPromptsReplacedWhenTraceWritten(t *testing.T) {
	r := newRig(t, ".parquet", keepPromptsOver(t))
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"there was a proxy"}`)
	if got := readFile(t, PromptsPath(r.out)); got != earlierPrompts {
		t.Errorf("while the session runs the prompts file holds %q, want the earlier session's", got)
	}
	r.finish(t)
	if st := r.p.Stats(); !st.Written || st.RowsLeft != "" {
		t.Errorf("Stats say written %v, rows left in %q: want the trace written", st.Written, st.RowsLeft)
	}
	got := readFile(t, PromptsPath(r.out))
	if !strings.Contains(got, "once upon a time") || !strings.Contains(got, "there was a proxy") || strings.Contains(got, "an earlier session") {
		t.Errorf("prompts file %q: want this session's two prompts only", got)
	}
	want := []string{"run.parquet", "run.prompts.jsonl"}
	if names := testfs.Names(t, filepath.Dir(r.out)); !slices.Equal(names, want) {
		t.Errorf("folder holds %q, want %q", names, want)
	}
}

// When the trace cannot be written at Out (here a directory is in the
// way), the rows stay in the staging stream, .arrows or not, and their
// prompts in the temporary file, which the error names; the earlier
// prompts file is left as it was.
func TestPromptsLeftWithRowsWhenConversionFails(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrows"} {
		t.Run(ext, func(t *testing.T) { testPromptsLeftWithRows(t, ext) })
	}
}

func testPromptsLeftWithRows(t *testing.T, ext string) {
	r := newRig(t, ext, keepPromptsOver(t))
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
	if err := os.MkdirAll(filepath.Join(r.out, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.srv.Close()
	err := r.p.Close()
	if err == nil {
		t.Fatal("Close succeeded with a directory at the trace's path")
	}
	if got := readFile(t, PromptsPath(r.out)); got != earlierPrompts {
		t.Errorf("after a failed session the prompts file holds %q, want the earlier session's", got)
	}
	if _, serr := os.Stat(stagingPath(r.out)); serr != nil {
		t.Fatalf("rows not left in the staging file: %v", serr)
	}
	if st := r.p.Stats(); st.Written || st.RowsLeft != stagingPath(r.out) {
		t.Errorf("Stats say written %v, rows left in %q: want the rows left in %s", st.Written, st.RowsLeft, stagingPath(r.out))
	}
	var kept string
	for _, name := range testfs.Names(t, filepath.Dir(r.out)) {
		if strings.HasPrefix(name, ".run.prompts.jsonl.tmp") {
			kept = filepath.Join(filepath.Dir(r.out), name)
		}
	}
	if kept == "" {
		t.Fatal("the session's prompts were not left beside the rows")
	}
	if !strings.Contains(err.Error(), kept) || !strings.Contains(err.Error(), stagingPath(r.out)) {
		t.Errorf("error %q: want it to name %s and %s", err, stagingPath(r.out), kept)
	}
	if got := readFile(t, kept); !strings.Contains(got, "once upon a time") {
		t.Errorf("left prompts %q: want this session's", got)
	}
}
