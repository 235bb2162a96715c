package traces

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeEmpty writes a file of the given columns and no rows, as pandas,
// Polars and pyarrow do for an empty frame.
func writeEmpty(t *testing.T, path string, fs ...arrow.Field) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs, nil))
	defer b.Release()
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeRecord(t, path, rec)
}

// A file with no rows still has its columns checked: a missing, unknown
// or mistyped column is an error, not an empty trace.
func TestEmptyFileSchemaChecked(t *testing.T) {
	required := []arrow.Field{fields[0], fields[1], fields[2], fields[3], fields[7], fields[8]}
	mistyped := slices.Clone(required)
	mistyped[1].Type = arrow.BinaryTypes.String
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		for _, c := range []struct {
			name string
			fs   []arrow.Field
			want string // "" reads as an empty trace
		}{
			{"valid", required, ""},
			{"missing", required[:3], `missing required column "output_tokens"`},
			{"unknown", append(slices.Clone(required), arrow.Field{Name: "ttft", Type: arrow.PrimitiveTypes.Int64}), `unknown column "ttft"`},
			{"mistyped", mistyped, `column "arrival_ns": want type int64, got utf8`},
		} {
			path := filepath.Join(t.TempDir(), "t"+ext)
			writeEmpty(t, path, c.fs...)
			_, rows, err := ReadAll(path)
			switch {
			case c.want == "" && (err != nil || len(rows) != 0):
				t.Errorf("%s %s: %d rows, err %v, want an empty trace", ext, c.name, len(rows), err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path)):
				t.Errorf("%s %s: err = %v, want %s naming the file", ext, c.name, err, c.want)
			}
		}
	}
}
