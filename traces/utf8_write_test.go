package traces

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text that is not UTF-8 is refused when written, in every format, naming
// the row, the column and the byte: Arrow and Parquet strings are UTF-8,
// and JSONL would have written U+FFFD in its place. Nothing is left at
// the destination. A literal U+FFFD is text like any other.
func TestWriteRefusesInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv", ".jsonl"} {
		for _, tc := range []struct {
			col string
			set func(r *Request)
		}{
			{ColID, func(r *Request) { r.ID = "a\xffb" }},
			{ColOutputText, func(r *Request) { r.OutputText = "ok \xc3" }},
			{ColSessionID, func(r *Request) { r.SessionID = "\x80" }},
		} {
			path := filepath.Join(dir, "t-"+tc.col+ext)
			w, err := Create(path, Meta{Source: "synthetic"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&Request{ID: "fine \uFFFD", PromptTokens: 1, OutputTokens: 1}); err != nil {
				t.Fatalf("%s: a literal U+FFFD: %v", ext, err)
			}
			bad := &Request{ID: "r", PromptTokens: 1, OutputTokens: 1}
			tc.set(bad)
			err = w.Write(bad)
			if err == nil || !strings.Contains(err.Error(), "row 2: "+tc.col+": invalid UTF-8 at byte") {
				t.Errorf("%s %s: %v: want row 2 and the column named", ext, tc.col, err)
			}
			w.Abort()
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: destination exists after a refused row (%v)", ext, err)
			}
		}
	}
	_, err := Create(filepath.Join(dir, "m.jsonl"), Meta{Source: "synthetic", Extra: map[string]string{"k": "v\xfe"}})
	if err == nil || !strings.Contains(err.Error(), `metadata "servesim.x.k": value: invalid UTF-8 at byte 2 (0xfe)`) {
		t.Errorf("invalid metadata value: %v", err)
	}
}
