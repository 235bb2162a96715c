package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// observedRecord is two rows of the full schema with every nullable column
// null, except col in the second row, which holds v.
func observedRecord(t *testing.T, col string, v int64) arrow.RecordBatch {
	t.Helper()
	sc := Schema(Meta{})
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for row := 0; row < 2; row++ {
		for i, f := range sc.Fields() {
			set := row == 1 && f.Name == col
			switch fb := b.Field(i).(type) {
			case *array.Int64Builder:
				switch {
				case set:
					fb.Append(v)
				case f.Nullable:
					fb.AppendNull()
				default:
					fb.Append(int64(row))
				}
			case *array.Int32Builder:
				switch {
				case set:
					fb.Append(int32(v))
				case f.Nullable:
					fb.AppendNull()
				default:
					fb.Append(4)
				}
			case *array.StringBuilder:
				if f.Nullable {
					fb.AppendNull()
				} else {
					fb.Append("r")
				}
			case *array.BooleanBuilder:
				fb.Append(false)
			default:
				fb.AppendNull()
			}
		}
	}
	return b.NewRecordBatch()
}

// -1 is how a reader marks an observed number that was not measured, but
// on disk that is an empty cell or a null: a literal -1 is a negative time
// or count like -2, and was read as "not measured" instead of refused.
func TestObservedMinusOneRefused(t *testing.T) {
	for _, col := range []string{ColFirstToken, ColUsageOutput, ColHTTPStatus} {
		for _, ext := range []string{".csv", ".jsonl", ".parquet", ".arrow", ".arrows"} {
			t.Run(col+ext, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "t"+ext)
				where := "row 2"
				switch ext {
				case ".csv":
					where = "line 3"
					os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens,"+col+"\n0,4,4,\n1,4,4,-1\n"), 0o644)
				case ".jsonl":
					where = "line 2"
					os.WriteFile(path, []byte(`{"arrival_ns":0,"prompt_tokens":4,"output_tokens":4,"`+col+`":null}`+"\n"+
						`{"arrival_ns":1,"prompt_tokens":4,"output_tokens":4,"`+col+`":-1}`+"\n"), 0o644)
				default:
					rec := observedRecord(t, col, -1)
					defer rec.Release()
					writeRecord(t, path, rec)
				}
				_, rows, err := ReadAll(path)
				if err == nil {
					t.Fatalf("read without error: %d rows", len(rows))
				}
				for _, w := range []string{where, col, "-1 is negative"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %q, want it to contain %q", err, w)
					}
				}
				if len(rows) != 1 {
					t.Errorf("read %d rows before the error, want 1 (the empty or null cell)", len(rows))
				}
			})
		}
	}
}

// A writer refuses a negative count as readers do, else it writes a file
// that does not read back; Missing (-1) is written as a null.
func TestNegativeCountNotWritten(t *testing.T) {
	r := &Request{}
	r.Reset()
	r.Arrival, r.PromptTokens, r.OutputTokens = 100, 1, 1
	r.HTTPStatus, r.UsageOutput = 200, -2
	path := filepath.Join(t.TempDir(), "o.parquet")
	if err := WriteAll(path, Meta{}, []*Request{r}); err == nil || !strings.Contains(err.Error(), "usage_completion_tokens -2 is negative") {
		t.Errorf("write: err = %v, want usage_completion_tokens -2 is negative", err)
	}
	r.UsageOutput = Missing
	if err := WriteAll(path, Meta{}, []*Request{r}); err != nil {
		t.Errorf("write of a count not measured: %v", err)
	}
}
