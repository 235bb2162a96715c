package traces

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Other tools write an int32 where servesim writes int64 (a Polars or
// DuckDB INTEGER) and lists whose elements cannot be null (Spark's
// containsNull=false): both hold every value unchanged, and read so.
func TestArrowNarrowerTypesRead(t *testing.T) {
	fs := []arrow.Field{
		fields[0], fields[2], fields[3], fields[7], fields[8],
		{Name: ColArrival, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: ColFirstToken, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: ColPrefixHashes, Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Uint64), Nullable: true},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs, nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{10, 20}, nil)
	b.Field(2).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(3).(*array.BooleanBuilder).AppendValues([]bool{false, false}, nil)
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{false, false}, nil)
	b.Field(5).(*array.Int32Builder).AppendValues([]int32{0, 1_000_000_000}, nil)
	b.Field(6).(*array.Int32Builder).AppendValues([]int32{0, 1_500_000_000}, []bool{false, true})
	hashes := b.Field(7).(*array.ListBuilder)
	hashes.Append(true)
	hashes.ValueBuilder().(*array.Uint64Builder).AppendValues([]uint64{7, 1 << 63}, nil)
	hashes.AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, ext := range []string{".parquet", ".arrow"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		writeRecord(t, path, rec)
		_, rows, err := ReadAll(path)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(rows) != 2 || rows[1].Arrival != 1_000_000_000 || rows[0].FirstToken != Missing || rows[1].FirstToken != 1_500_000_000 ||
			!slices.Equal(rows[0].PrefixHashes, []uint64{7, 1 << 63}) || rows[1].PrefixHashes != nil {
			t.Errorf("%s: rows %+v %+v", ext, *rows[0], *rows[1])
		}
	}
}
