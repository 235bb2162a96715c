package traces

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func rowsAt(arrivals ...int64) []*Request {
	var out []*Request
	for i, a := range arrivals {
		r := &Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = string(rune('a'+i)), a, 1, 1
		out = append(out, r)
	}
	return out
}

func drain(t *testing.T, r Reader) []*Request {
	t.Helper()
	var out []*Request
	for r.Next() {
		out = append(out, r.At().Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func arrivals(rows []*Request) []int64 {
	out := []int64{}
	for _, r := range rows {
		out = append(out, r.Arrival)
	}
	return out
}

func TestSlice(t *testing.T) {
	rows := rowsAt(0, 10, 20, 30, 40)
	rows[2].FirstToken, rows[2].TokenTimes = 25, []int64{25, 27}
	got := drain(t, Slice(&sliceReader{rows: rows}, 10, 40, 0))
	if a := arrivals(got); !reflect.DeepEqual(a, []int64{0, 10, 20}) {
		t.Errorf("arrivals = %v", a)
	}
	if got[1].FirstToken != 15 || !reflect.DeepEqual(got[1].TokenTimes, []int64{15, 17}) || got[1].LastToken != Missing {
		t.Errorf("observed times not re-based: %+v", got[1])
	}
	rows = rowsAt(0, 10, 20, 30, 40)
	s := Slice(&sliceReader{rows: rows}, 0, 0, 2)
	if a := arrivals(drain(t, s)); !reflect.DeepEqual(a, []int64{0, 10}) {
		t.Errorf("head: arrivals = %v", a)
	}
	if s.Meta().Extra["slice"] != "from_ns=0 head=2" {
		t.Errorf("meta = %+v", s.Meta())
	}
}

func TestScale(t *testing.T) {
	rows := rowsAt(0, 10, 21)
	rows[1].FirstToken, rows[1].ActualSend = 12, 10
	s, err := Scale(&sliceReader{rows: rows}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, s)
	if a := arrivals(got); !reflect.DeepEqual(a, []int64{0, 5, 11}) {
		t.Errorf("arrivals = %v", a)
	}
	if got[1].Observed() {
		t.Errorf("observed columns kept: %+v", got[1])
	}
	if s.Meta().Extra["time_scale"] != "0.5" {
		t.Errorf("meta = %+v", s.Meta())
	}
	if _, err := Scale(&sliceReader{}, -1); err == nil {
		t.Error("negative factor accepted")
	}
}

func TestConvertKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	prev := filepath.Join(dir, "t.parquet")
	if err := WriteAll(prev, sampleMeta(), sampleRequests()); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".arrow", ".arrows", ".csv", ".jsonl", ".parquet"} {
		next := filepath.Join(dir, "u"+ext)
		if n, err := Convert(t.Context(), prev, next); err != nil || n != 3 {
			t.Fatalf("%s: %d %v", ext, n, err)
		}
		meta, got, err := ReadAll(next)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(meta, sampleMeta()) || !reflect.DeepEqual(got, sampleRequests()) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", ext, meta, got[2])
		}
		prev = next
	}
}

// cancelAfter cancels its context once n rows have been read: an interrupt
// arriving mid-copy.
type cancelAfter struct {
	Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Next() bool {
	if c.n == 0 {
		c.cancel()
	}
	c.n--
	return c.Reader.Next()
}

func TestWriteTraceStopsWhenCancelled(t *testing.T) {
	rows := make([]int64, 3*ctxCheckRows)
	for _, ext := range []string{".parquet", ".csv"} {
		for _, after := range []int{0, 10} {
			dir := t.TempDir()
			out := filepath.Join(dir, "out"+ext)
			ctx, cancel := context.WithCancel(t.Context())
			r := &cancelAfter{Reader: &sliceReader{rows: rowsAt(rows...)}, n: after, cancel: cancel}
			n, err := WriteTrace(ctx, out, r)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), out) {
				t.Errorf("%s, cancelled after %d rows: err = %v, want context.Canceled naming %s", ext, after, err, out)
			}
			if n > ctxCheckRows {
				t.Errorf("%s, cancelled after %d rows: copied %d rows, want at most %d", ext, after, n, ctxCheckRows)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s: an interrupted write left %v", ext, ents)
			}
		}
	}
}
