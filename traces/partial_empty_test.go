package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// A stream holds its schema and metadata from its creation, so that a
// recording killed before any request finished leaves a file that reads
// back (no rows) instead of an empty one nothing can open.
func TestFlushedStreamWithoutRowsReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.parquet"+PartialSuffix)
	w, err := Create(path, Meta{Source: "live", Extra: map[string]string{"replay.status": "partial"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.(Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	tmp := w.(interface{ TempPath() string }).TempPath()
	data, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	// What a kill leaves: the bytes so far under the partial name.
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatAuto, ImportOptions{})
	if err != nil {
		t.Fatalf("%d bytes: %v", len(data), err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil || n != 0 {
		t.Errorf("%d rows, err %v; want none", n, err)
	}
	if m := r.Meta(); m.Source != "live" || m.Extra["replay.status"] != "partial" {
		t.Errorf("meta %+v: want the trace's", m)
	}

	// A second flush with rows adds them after the empty batch.
	row := &Request{}
	row.Reset()
	row.ID, row.PromptTokens, row.OutputTokens = "a", 10, 5
	if err := w.Write(row); err != nil {
		t.Fatal(err)
	}
	if err := w.(Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(tmp)
	os.WriteFile(path, data, 0o644)
	_, rows, err := ReadAll(path)
	if err != nil || len(rows) != 1 || rows[0].ID != "a" {
		t.Errorf("after a row: %d rows, err %v; want a", len(rows), err)
	}
}
