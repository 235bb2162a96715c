package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace written elsewhere may carry any block size; past MaxBlockSize
// no block fills, so reading it is refused, naming the file and field.
func TestOpenRefusesBlockSizePastBound(t *testing.T) {
	dir := t.TempDir()
	bodies := map[string]string{
		"t.csv":   "# servesim.block_size=1099511627776\narrival_ns,prompt_tokens,output_tokens\n0,1,1\n",
		"t.jsonl": `{"meta": {"servesim.block_size": "1099511627776"}}` + "\n" + `{"arrival_ns": 0, "prompt_tokens": 1, "output_tokens": 1}` + "\n",
	}
	for name, body := range bodies {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeParquetElsewhere(t, filepath.Join(dir, "t.parquet"), Meta{BlockSize: 1 << 40})
	for _, name := range []string{"t.csv", "t.jsonl", "t.parquet"} {
		path := filepath.Join(dir, name)
		r, err := Open(path)
		if err == nil {
			r.Close()
			t.Errorf("%s: opened a trace with a 2^40-token block size", name)
			continue
		}
		for _, want := range []string{path, "servesim.block_size", "1099511627776", "10000000"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want it to name %q", name, err, want)
			}
		}
	}
}

// The bound itself is a block size a trace may carry.
func TestOpenAcceptsBlockSizeAtBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	body := "# servesim.block_size=10000000\narrival_ns,prompt_tokens,output_tokens\n0,1,1\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Meta().BlockSize; got != MaxBlockSize {
		t.Errorf("block size %d, want %d", got, MaxBlockSize)
	}
}

// writeParquetElsewhere writes a row-less Parquet trace with meta as
// another tool would, past Create's checks.
func writeParquetElsewhere(t *testing.T, path string, meta Meta) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc, err := newParquetEncoder(f, meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
