package traces

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeInt64Counts writes prompt_tokens and http_status as int64, as
// pandas, Spark (LongType) and DuckDB (BIGINT) write integers.
func writeInt64Counts(t *testing.T, path string, prompts []int64) {
	t.Helper()
	fs := []arrow.Field{
		fields[0], fields[1], fields[3], fields[7], fields[8],
		{Name: ColPromptTokens, Type: arrow.PrimitiveTypes.Int64},
		{Name: ColHTTPStatus, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs, nil))
	defer b.Release()
	for i, p := range prompts {
		b.Field(0).(*array.StringBuilder).Append("r")
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Int32Builder).Append(1)
		b.Field(3).(*array.BooleanBuilder).Append(false)
		b.Field(4).(*array.BooleanBuilder).Append(false)
		b.Field(5).(*array.Int64Builder).Append(p)
		b.Field(6).(*array.Int64Builder).AppendNull()
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	writeRecord(t, path, rec)
}

// Token counts and other int32 columns written as int64 read when every
// value fits; a value past int32 is refused, naming the column and value.
func TestArrowInt64CountsRead(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		writeInt64Counts(t, path, []int64{10, 2_000_000_000})
		_, rows, err := ReadAll(path)
		if err != nil || len(rows) != 2 || rows[1].PromptTokens != 2_000_000_000 || rows[1].HTTPStatus != Missing {
			t.Errorf("%s: rows %v, err %v", ext, rows, err)
		}
		writeInt64Counts(t, path, []int64{10, 1 << 31})
		_, _, err = ReadAll(path)
		for _, w := range []string{path, `column "prompt_tokens"`, "row 2", "2147483648", "int32"} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want it to contain %s", ext, err, w)
			}
		}
	}
}
