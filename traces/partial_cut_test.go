package traces

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Whether a partial stream's conversion dropped a message cut short is
// decided from the read the conversion made: a stream still being written
// may finish that message, or start another, before anyone asks.
func TestPartialCutShortIsTheConversionsRead(t *testing.T) {
	dir := t.TempDir()
	one := streamOf(t, filepath.Join(dir, "one.arrows"), "a")
	two := streamOf(t, filepath.Join(dir, "two.arrows"), "a", "b")
	boundary := len(one) - 8 // the first batch's end: one's end-of-stream marker
	whole := len(two) - 8
	for _, c := range []struct {
		name              string
		atRead, afterRead int // bytes of data on disk when converted, and when asked
		cut               bool
	}{
		{"flush begun after the read", boundary, whole - 16, false},
		{"flush finished after the read", whole - 16, whole, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			partial := filepath.Join(dir, "run.parquet"+PartialSuffix)
			if err := os.WriteFile(partial, two[:c.atRead], 0o644); err != nil {
				t.Fatal(err)
			}
			n, cut, err := convertThenAsk(partial, filepath.Join(dir, "out.parquet"), func() {
				if err := os.WriteFile(partial, two[:c.afterRead], 0o644); err != nil {
					t.Fatal(err)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 || cut != c.cut {
				t.Errorf("converted %d rows, cut short = %v; want 1, %v (from the read the conversion made)", n, cut, c.cut)
			}
		})
	}
}

// convertThenAsk converts in, then lets the writer go on before the
// answer is looked at.
func convertThenAsk(in, out string, between func()) (int, bool, error) {
	n, cut, err := ConvertPartial(context.Background(), in, out)
	between()
	return n, cut, err
}

// streamOf writes a stream of one batch per id and returns its bytes.
func streamOf(t *testing.T, path string, ids ...string) []byte {
	t.Helper()
	w, err := Create(path, Meta{Source: "live"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		r := &Request{}
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens, r.HTTPStatus = id, 10, 5, 200
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := w.(Flusher).Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
