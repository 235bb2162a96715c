package traces

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A killed recording leaves its rows in completion order in a stream
// whose last message may be cut short: importing or converting it gives
// the rows held whole, in arrival order.
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
			r, err := Import(partial, FormatAuto, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for r.Next() {
				ids = append(ids, r.At().ID)
			}
			if err := r.Err(); err != nil || !slices.Equal(ids, c.want) {
				t.Errorf("import: rows %v, err %v; want %v", ids, err, c.want)
			}
			r.Close()
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
