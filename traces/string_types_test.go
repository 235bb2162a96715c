package traces

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pandas writes a categorical column as a dictionary, and pandas 3 and
// Polars their strings as large_string: the text reads the same.
func TestArrowOtherStringTypesRead(t *testing.T) {
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	fs := []arrow.Field{
		{Name: ColID, Type: arrow.BinaryTypes.LargeString, Nullable: true},
		fields[1], fields[2], fields[3], fields[7], fields[8],
		{Name: ColClass, Type: dict, Nullable: true},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs, nil))
	defer b.Release()
	b.Field(0).(*array.LargeStringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{0, 1, 2}, nil)
	b.Field(2).(*array.Int32Builder).AppendValues([]int32{10, 20, 30}, nil)
	b.Field(3).(*array.Int32Builder).AppendValues([]int32{1, 2, 3}, nil)
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{false, false, false}, nil)
	b.Field(5).(*array.BooleanBuilder).AppendValues([]bool{false, false, false}, nil)
	class := b.Field(6).(*array.BinaryDictionaryBuilder)
	class.AppendString("gold")
	class.AppendNull()
	class.AppendString("gold")
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, ext := range []string{".parquet", ".arrow"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		writeRecord(t, path, rec)
		_, rows, err := ReadAll(path)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(rows) != 3 || rows[0].ID != "a" || rows[2].ID != "c" || rows[0].Class != "gold" || rows[1].Class != "" || rows[2].Class != "gold" {
			t.Errorf("%s: rows %+v %+v %+v", ext, *rows[0], *rows[1], *rows[2])
		}
	}
}

// Arrow lets a dictionary hold a null entry (pyarrow's dictionary_encode
// with null_encoding="encode"): a row pointing at it is a null string.
func TestArrowDictionaryNullEntryReadsNull(t *testing.T) {
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	fs := []arrow.Field{fields[0], fields[1], fields[2], fields[3], fields[7], fields[8], {Name: ColClass, Type: dict, Nullable: true}}
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	defer vb.Release()
	vb.AppendValues([]string{"gold", ""}, []bool{true, false})
	values := vb.NewArray()
	defer values.Release()
	ib := array.NewInt8Builder(memory.DefaultAllocator)
	defer ib.Release()
	ib.AppendValues([]int8{0, 1}, nil)
	indices := ib.NewArray()
	defer indices.Release()
	class := array.NewDictionaryArray(dict, indices, values)
	defer class.Release()

	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fs[:6], nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{0, 1}, nil)
	b.Field(2).(*array.Int32Builder).AppendValues([]int32{10, 20}, nil)
	b.Field(3).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{false, false}, nil)
	b.Field(5).(*array.BooleanBuilder).AppendValues([]bool{false, false}, nil)
	base := b.NewRecordBatch()
	defer base.Release()
	rec := array.NewRecordBatch(arrow.NewSchema(fs, nil), append(base.Columns(), class), 2)
	defer rec.Release()

	path := filepath.Join(t.TempDir(), "t.arrow")
	writeRecord(t, path, rec)
	_, rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Class != "gold" || rows[1].Class != "" {
		t.Errorf("rows %+v %+v", *rows[0], *rows[1])
	}
}
