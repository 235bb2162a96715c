package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A recording killed while flushing leaves a stream whose last message is
// cut short: convert keeps the rows held whole and says how many, and that
// the cut message's rows were dropped, so a short recovery does not pass for all
// the run measured.
func TestTraceConvertNotesACutPartialStream(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.arrows")
	w, err := traces.Create(full, traces.Meta{Source: "live"})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"a", "b"} {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = id, int64(i)*1e9, 10, 5
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := w.(traces.Flusher).Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cut  int // bytes cut from the end: the end-of-stream marker, and into the last batch
		note bool
	}{{"whole", 0, false}, {"killed", 8 + 16, true}} {
		t.Run(c.name, func(t *testing.T) {
			partial := filepath.Join(dir, c.name+".parquet"+traces.PartialSuffix)
			if err := os.WriteFile(partial, data[:len(data)-c.cut], 0o644); err != nil {
				t.Fatal(err)
			}
			msg, err := run(t, "trace", "convert", partial, filepath.Join(dir, c.name+".parquet"))
			if err != nil {
				t.Fatalf("%v\n%s", err, msg)
			}
			if got := strings.Contains(msg, "cut short"); got != c.note {
				t.Errorf("output %q: note of a cut last message %v, want %v", msg, got, c.note)
			}
			if c.note && !strings.Contains(msg, partial) {
				t.Errorf("output %q does not name %s", msg, partial)
			}
			if c.note && !strings.Contains(msg, "rows read whole: 1") {
				t.Errorf("output %q does not say how many rows were read whole (1)", msg)
			}
		})
	}
}
