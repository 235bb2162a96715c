package traces

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeColumns writes one row of the required columns plus extra, each
// extra an int64 column of 5, as an Arrow or Parquet file at path.
func writeColumns(t *testing.T, path string, extra ...string) {
	t.Helper()
	fs := []arrow.Field{fields[0], fields[1], fields[2], fields[3], fields[7], fields[8]}
	for _, name := range extra {
		fs = append(fs, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs, nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("a")
	b.Field(1).(*array.Int64Builder).Append(0)
	b.Field(2).(*array.Int32Builder).Append(10)
	b.Field(3).(*array.Int32Builder).Append(2)
	b.Field(4).(*array.BooleanBuilder).Append(false)
	b.Field(5).(*array.BooleanBuilder).Append(false)
	for i := range extra {
		b.Field(6 + i).(*array.Int64Builder).Append(5)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeRecord(t, path, rec)
}

// A column the schema does not know (a misspelt first_token_ns, say) is an
// error in Arrow and Parquet files as in CSV and JSONL, not a column
// silently dropped, its values read as not measured; so is a column named
// twice, of which only one could be read.
func TestArrowUnknownColumnRefused(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		for _, c := range []struct {
			extra []string
			want  string
		}{
			{[]string{"first_token"}, `unknown column "first_token"`},
			{[]string{ColFirstToken, ColFirstToken}, `column "first_token_ns" appears twice`},
		} {
			path := filepath.Join(t.TempDir(), "t"+ext)
			writeColumns(t, path, c.extra...)
			_, rows, err := ReadAll(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s with %v: %d rows, err = %v, want %s", ext, c.extra, len(rows), err, c.want)
			}
		}
	}
}
