package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// listNullRecord is three rows of the full schema; in the third, the list
// column col holds [1, null, 3]. The other list column is null.
func listNullRecord(t *testing.T, col string) arrow.RecordBatch {
	t.Helper()
	sc := Schema(Meta{})
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for row := 0; row < 3; row++ {
		for i, f := range sc.Fields() {
			switch fb := b.Field(i).(type) {
			case *array.ListBuilder:
				if f.Name != col {
					fb.AppendNull()
					continue
				}
				fb.Append(true)
				switch vb := fb.ValueBuilder().(type) {
				case *array.Uint64Builder:
					vb.Append(1)
					if row == 2 {
						vb.AppendNull()
					}
					vb.Append(3)
				case *array.Int64Builder:
					vb.Append(1)
					if row == 2 {
						vb.AppendNull()
					}
					vb.Append(3)
				}
			case *array.StringBuilder:
				if f.Nullable {
					fb.AppendNull()
				} else {
					fb.Append("r")
				}
			case *array.Int64Builder:
				if f.Nullable {
					fb.AppendNull()
				} else {
					fb.Append(0)
				}
			case *array.Int32Builder:
				if f.Nullable {
					fb.AppendNull()
				} else {
					fb.Append(4)
				}
			case *array.BooleanBuilder:
				fb.Append(false)
			default:
				t.Fatalf("column %s: no case for %T", f.Name, fb)
			}
		}
	}
	return b.NewRecordBatch()
}

func writeListNullFile(t *testing.T, path, col string) {
	t.Helper()
	rec := listNullRecord(t, col)
	defer rec.Release()
	writeRecord(t, path, rec)
}

// writeRecord writes rec in the format of path's extension: .parquet,
// .arrow or .arrows.
func writeRecord(t *testing.T, path string, rec arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch filepath.Ext(path) {
	case ".parquet":
		w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case ".arrow":
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case ".arrows":
		w := ipc.NewWriter(f, ipc.WithSchema(rec.Schema()))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A null inside a list (a block hash or a token time) is refused, naming
// the file, the row and the column, rather than read as 0.
func TestNullListElementRefused(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		for _, col := range []string{ColPrefixHashes, ColTokenTimes} {
			t.Run(ext+"/"+col, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "t"+ext)
				writeListNullFile(t, path, col)
				_, rows, err := ReadAll(path)
				if err == nil {
					t.Fatalf("read without error: %s of the last row = %v %v", col, rows[len(rows)-1].PrefixHashes, rows[len(rows)-1].TokenTimes)
				}
				for _, w := range []string{path, "row 3", col, "null"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %q, want it to contain %q", err, w)
					}
				}
				if len(rows) != 2 {
					t.Errorf("read %d rows before the error, want 2", len(rows))
				}
			})
		}
	}
}

// The same in a JSONL trace and a Mooncake import.
func TestJSONNullListElementRefused(t *testing.T) {
	ok := `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1,"prefix_hashes":[1,2]}` + "\n"
	for _, tc := range []struct{ name, line, col string }{
		{"hashes", `{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"prefix_hashes":[1, null, 3]}`, ColPrefixHashes},
		{"token times", `{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"http_status":200,"token_times_ns":[5,null]}`, ColTokenTimes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(ok+tc.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, rows, err := ReadAll(path)
			if err == nil {
				t.Fatalf("read without error: %+v", rows[len(rows)-1])
			}
			for _, w := range []string{path, "line 2", tc.col, "null"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
	// A null value inside a string, or a null list, is no null element.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(ok+`{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"class":"[null]","prefix_hashes":null,"token_times_ns":null}`+"\n"), 0o644)
	if _, rows, err := ReadAll(path); err != nil || len(rows) != 2 || rows[1].PrefixHashes != nil || rows[1].Class != "[null]" {
		t.Errorf("rows %+v, err %v", rows, err)
	}

	in := `{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}` + "\n" +
		`{"timestamp": 5, "input_length": 10, "output_length": 1, "hash_ids": [1, null, 3]}` + "\n"
	_, err := importStringErr(FormatMooncake, in, ImportOptions{Name: "mc.jsonl"})
	if err == nil {
		t.Fatal("mooncake: a null hash id was accepted")
	}
	for _, w := range []string{"mc.jsonl:2", "hash_ids", "null"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("mooncake: err = %q, want it to contain %q", err, w)
		}
	}
	// "hash_ids": null stays a row without hashes.
	rows, err := importStringErr(FormatMooncake, `{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": null}`+"\n", ImportOptions{})
	if err != nil || len(rows) != 1 || rows[0].PrefixHashes != nil {
		t.Errorf("mooncake null hash_ids: rows %+v, err %v", rows, err)
	}
}
