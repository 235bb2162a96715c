package traces

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A killed recording leaves its rows in completion order in a stream
// whose last message may be cut short: converting it gives the rows held
// whole, in arrival order; importing it does too, unless a message was cut
// short, which it refuses.
func TestPartialStreamReadsBack(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.arrows")
	w, err := Create(full, Meta{Source: "live"})
	if err != nil {
		t.Fatal(err)
	}
	row := func(id string, arrival int64) *Request {
		r := &Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = id, arrival, 10, 5
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = arrival, arrival, 200
		r.FirstToken, r.LastToken, r.UsagePrompt, r.UsageOutput = arrival+1e8, arrival+2e8, 10, 5
		return r
	}
	for _, batch := range [][]*Request{{row("c", 2e9), row("a", 0)}, {row("b", 1e9)}} { // as they completed
		for _, r := range batch {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.(Flusher).Flush(); err != nil {
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
		want []string
	}{{"whole", 0, []string{"a", "b", "c"}}, {"killed", 8 + 16, []string{"a", "c"}}} {
		t.Run(c.name, func(t *testing.T) {
			partial := filepath.Join(dir, c.name+".parquet"+PartialSuffix)
			if err := os.WriteFile(partial, data[:len(data)-c.cut], 0o644); err != nil {
				t.Fatal(err)
			}
			var ids []string
			r, err := Import(partial, FormatAuto, ImportOptions{})
			switch {
			case c.cut > 8:
				if !errors.Is(err, ErrCutShort) {
					t.Errorf("import: err %v; want ErrCutShort", err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				for r.Next() {
					ids = append(ids, r.At().ID)
				}
				if err := r.Err(); err != nil || !slices.Equal(ids, c.want) {
					t.Errorf("import: rows %v, err %v; want %v", ids, err, c.want)
				}
				r.Close()
			}
			out := filepath.Join(dir, c.name+".parquet")
			if n, err := Convert(context.Background(), partial, out); err != nil || n != len(c.want) {
				t.Fatalf("convert: %d rows, %v; want %d", n, err, len(c.want))
			}
			_, rows, err := ReadAll(out)
			ids = nil
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if err != nil || !slices.Equal(ids, c.want) {
				t.Errorf("converted: rows %v, err %v; want %v", ids, err, c.want)
			}
		})
	}
}

// An error reading a partial stream names the file once.
func TestPartialErrorNamesFileOnce(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "run.parquet"+PartialSuffix)
	writeListNullFile(t, bad, ColPrefixHashes) // its third row cannot be read
	garbage := filepath.Join(dir, "garbage"+PartialSuffix)
	if err := os.WriteFile(garbage, []byte("not a stream at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing"+PartialSuffix)
	check := func(what, path string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
		} else if n := strings.Count(err.Error(), path); n != 1 {
			t.Errorf("%s: err = %q names %s %d times, want once", what, err, path, n)
		}
	}
	for _, path := range []string{bad, garbage, missing} {
		_, err := Convert(context.Background(), path, filepath.Join(dir, "out.parquet"))
		check("convert "+filepath.Base(path), path, err)
		r, err := Import(path, FormatServesim, ImportOptions{})
		if err == nil {
			for r.Next() {
			}
			err = r.Err()
			r.Close()
		}
		check("import "+filepath.Base(path), path, err)
	}
	r, err := OpenTolerant(bad)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	check("OpenTolerant", bad, r.Err())
	r.Close()
	_, err = OpenTolerant(missing)
	check("OpenTolerant missing", missing, err)
	for _, ext := range []string{".arrows", ".parquet", ".csv", ".jsonl"} {
		path := filepath.Join(dir, "missing"+ext)
		_, err = Open(path)
		check("Open missing"+ext, path, err)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open missing%s: err = %v, want fs.ErrNotExist", ext, err)
		}
	}
}
