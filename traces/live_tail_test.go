package traces

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A partial stream is read while its recording still writes it (trace
// stats on OUT.partial.arrows mid-run): the reader gives the rows the
// file held when it was opened, not an error about a batch flushed since,
// however much larger than the file was.
func TestOpenTolerantReadsALiveStreamAsOpened(t *testing.T) {
	for _, held := range []int{0, 3} {
		w, err := Create(filepath.Join(t.TempDir(), "live.arrows"), Meta{Source: "live"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		flushRows := func(from, n int) {
			for i := from; i < from+n; i++ {
				r := &Request{}
				r.Reset()
				r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint("r", i), int64(i)*1e6, 10, 5
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.(Flusher).Flush(); err != nil {
				t.Fatal(err)
			}
		}
		flushRows(0, held)
		r, err := OpenTolerant(w.(interface{ TempPath() string }).TempPath())
		if err != nil {
			t.Fatal(err)
		}
		flushRows(held, 5000) // flushed after the open: a batch far larger than the file was
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil || n != held {
			t.Errorf("opened holding %d rows: read %d, err %v; want %d and no error", held, n, err, held)
		}
		r.Close()
	}
}
