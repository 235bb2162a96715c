package replay

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A file converted from an imported trace holds its source's rows, and a
// simulation of it names the source's checksum alone: a recording of it
// names the same, so that the two compare as runs of one input.
func TestRecordOfAConvertedTraceNamesItsSource(t *testing.T) {
	srv := replaytest.New(replaytest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	csv := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(csv, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n"+
		"2023-11-16 18:15:46.6805900,40,3\n2023-11-16 18:15:46.7805900,50,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := traces.Import(csv, traces.FormatAzure, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(dir, "in.parquet") // as trace import writes it
	if _, err := traces.WriteTrace(t.Context(), conv, in); err != nil {
		t.Fatal(err)
	}
	simIn, err := traces.Import(conv, traces.FormatServesim, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := simIn.Meta().Checksums
	simIn.Close()

	cfg := testConfig(srv)
	cfg.Trace, cfg.Out = conv, filepath.Join(dir, "out.parquet")
	if _, err := Record(t.Context(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(meta.Checksums, want) || len(want) != 1 {
		t.Errorf("recording names inputs %v, a simulation of the same file %v: want the source's alone", meta.Checksums, want)
	}
}
