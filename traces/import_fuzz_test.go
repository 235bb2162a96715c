package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets feed arbitrary bytes to each parser. The property: no
// panic, and either an error or rows that validate, stay within the token
// bound and arrive in non-decreasing order. Seed corpora live in
// testdata/fuzz/<FuzzName>/.

func fuzzImporter(f *testing.F, format ImportFormat, opt ImportOptions) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewImporter(format, bytes.NewReader(data), opt)
		if err != nil {
			return
		}
		checkFuzzRows(t, r)
	})
}

// checkFuzzRows reads r to the end and returns its error.
func checkFuzzRows(t *testing.T, r Reader) error {
	defer r.Close()
	prev := int64(0)
	for n := 0; r.Next(); n++ {
		q := r.At()
		// as a row read back from a file must: no failed_ns on a success
		if err := q.validateRead(); err != nil {
			t.Fatalf("row %d does not validate: %v", n, err)
		}
		if n > 0 && q.Arrival < prev {
			t.Fatalf("row %d: arrival %d before %d", n, q.Arrival, prev)
		}
		if q.PromptTokens > DefaultMaxTokens || q.OutputTokens > DefaultMaxTokens {
			t.Fatalf("row %d: absurd token count passed: %+v", n, q)
		}
		prev = q.Arrival
	}
	return r.Err()
}

func FuzzAzure(f *testing.F)    { fuzzImporter(f, FormatAzure, ImportOptions{}) }
func FuzzBurstGPT(f *testing.F) { fuzzImporter(f, FormatBurstGPT, ImportOptions{}) }
func FuzzMooncake(f *testing.F) { fuzzImporter(f, FormatMooncake, ImportOptions{Spread: 3e9}) }
func FuzzVidur(f *testing.F)    { fuzzImporter(f, FormatVidur, ImportOptions{}) }
func FuzzShareGPT(f *testing.F) { fuzzImporter(f, FormatShareGPT, ImportOptions{Rate: 5, Seed: 1}) }

// FuzzSniff checks that the sniffed format, when any, imports without
// panicking.
func FuzzSniff(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Sniff(bufioString(string(data)))
		if err != nil || format == FormatServesim {
			return
		}
		r, err := NewImporter(format, bytes.NewReader(data), ImportOptions{Rate: 1})
		if err == nil {
			checkFuzzRows(t, r)
		}
	})
}

func fuzzServesim(f *testing.F, ext string) {
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "t"+ext)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Import(path, FormatServesim, ImportOptions{})
		if err != nil {
			return
		}
		checkFuzzRows(t, r)
	})
}

func FuzzServesimCSV(f *testing.F)   { fuzzServesim(f, ".csv") }
func FuzzServesimJSONL(f *testing.F) { fuzzServesim(f, ".jsonl") }
