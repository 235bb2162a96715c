package traces

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A stream that holds the one row written says so in the singular, as
// every count servesim prints does.
func TestKeepRowsNamesOneRow(t *testing.T) {
	path := stageRows(t, 1)
	note, kept := KeepRows(path, 1)
	if want := "the 1 row written so far stays in " + path; !kept || !strings.Contains(note, want) {
		t.Errorf("KeepRows: %q, kept %v; want %q", note, kept, want)
	}
	note, kept = KeepRows(stageRows(t, 0), 1)
	if kept || strings.Contains(note, "rows") {
		t.Errorf("KeepRows of a stream that lost the row: %q, kept %v; want one row named, not kept", note, kept)
	}
}

// stageRows writes a stream of n rows and returns its path.
func stageRows(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.parquet"+PartialSuffix)
	w, err := Create(path, Meta{Source: "live"})
	if err != nil {
		t.Fatal(err)
	}
	row := Request{PromptTokens: 1, OutputTokens: 1}
	for range n {
		if err := w.Write(&row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A stream that kept some of the rows written counts both parts with
// the verb agreeing: one row kept "stays", one row lost "was".
func TestKeepRowsAgreesWithPartCounts(t *testing.T) {
	cases := []struct {
		kept, written int
		want          string
	}{
		{1, 2, "1 of the 2 rows written stays in %s; the other was lost with the failed write"},
		{1, 3, "1 of the 3 rows written stays in %s; the others were lost with the failed write"},
		{2, 3, "2 of the 3 rows written stay in %s; the other was lost with the failed write"},
	}
	for _, c := range cases {
		path := stageRows(t, c.kept)
		note, kept := KeepRows(path, c.written)
		if want := fmt.Sprintf(c.want, path); !kept || note != want {
			t.Errorf("KeepRows(%d of %d): %q, kept %v; want %q", c.kept, c.written, note, kept, want)
		}
	}
}
