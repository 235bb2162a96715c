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
)

// A list column where every row holds an empty (measured) list stays
// empty: Parquet counts empty lists as nulls in its statistics.
func TestParquetAllEmptyListsStayEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	r := &Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens = "a", 10, 5
	r.PrefixHashes = []uint64{}
	r.HTTPStatus, r.Error = 503, "overloaded"
	r.TokenTimes = []int64{}
	if err := WriteAll(path, Meta{}, []*Request{r}); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].PrefixHashes == nil || got[0].TokenTimes == nil {
		t.Fatalf("empty lists came back null: prefix_hashes=%#v token_times=%#v", got[0].PrefixHashes, got[0].TokenTimes)
	}
}

// ClearObserved (and so Scale) leaves token_times_ns not measured.
func TestScaleClearsTokenTimesToNull(t *testing.T) {
	src := &sliceReader{rows: []*Request{sampleRequests()[1]}} // has 3 token times
	r, err := Scale(src, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal("no row")
	}
	if tt := r.At().TokenTimes; tt != nil {
		t.Fatalf("scaled (input-only) row has token_times_ns = %#v, want nil (not measured)", tt)
	}
}

// CSV errors count the metadata lines above the header.
func TestCSVErrorLineCountsMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("# servesim.source=x\n# servesim.model=m\narrival_ns,prompt_tokens,output_tokens\n0,10,5\n5,abc,5\n"), 0o644)
	_, _, err := ReadAll(path)
	if err == nil || !strings.Contains(err.Error(), "line 5:") {
		t.Fatalf("err = %v, want line 5 (the bad row's line in the file)", err)
	}
}

// --spread is recorded in the imported trace's metadata.
func TestSpreadRecordedInMeta(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [1]}` + "\n"
	r, err := NewImporter(FormatMooncake, strings.NewReader(in), ImportOptions{Spread: 3e9})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Meta().Extra["spread_ns"]; v != "3000000000" {
		t.Fatalf("meta x.spread_ns = %q, want 3000000000 (meta %+v)", v, r.Meta())
	}
}

// A carriage return in a text cell survives CSV.
func TestCSVKeepsCRLFInText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	r := sampleRequests()[1].Clone()
	r.OutputText = "line1\r\nline2"
	if err := WriteAll(path, Meta{}, []*Request{r}); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].OutputText != r.OutputText {
		t.Fatalf("output_text = %q, want %q", got[0].OutputText, r.OutputText)
	}
}

// A required column entirely null is refused, not read as zeros.
func TestAllNullRequiredColumnRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.arrow")
	sc := arrow.NewSchema([]arrow.Field{
		{Name: ColID, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: ColArrival, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: ColPromptTokens, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: ColOutputTokens, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: ColWarmup, Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: ColSourceFailed, Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := 0; i < 2; i++ {
		b.Field(0).(*array.StringBuilder).Append("x")
		b.Field(1).(*array.Int64Builder).AppendNull()
		b.Field(2).(*array.Int32Builder).Append(10)
		b.Field(3).(*array.Int32Builder).AppendNull()
		b.Field(4).(*array.BooleanBuilder).Append(false)
		b.Field(5).(*array.BooleanBuilder).Append(false)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, _ := os.Create(path)
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f.Close()
	_, got, err := ReadAll(path)
	if err == nil {
		t.Fatalf("read %d rows of null arrival_ns/output_tokens without error: %+v", len(got), got[0])
	}
}

// A ShareGPT turn missing a field does not inherit the previous
// conversation's.
func TestShareGPTTurnFieldsDoNotLeak(t *testing.T) {
	in := `[
 {"id": "a", "conversations": [{"from": "human", "value": "0123456789012345678901234567890123456789"}, {"from": "gpt", "value": "hi"}]},
 {"id": "b", "conversations": [{"value": "no role"}, {"from": "gpt"}]}
]`
	rows := importString(t, FormatShareGPT, in, ImportOptions{Rate: 1, Seed: 1})
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1 (b has no human turn): %+v", len(rows), rows[len(rows)-1])
	}
}

// With one seed, changing the output spec leaves the prompts alone.
func TestSynthOutputSpecLeavesPrompts(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 20
	c.Prompt = LengthSpec{Kind: LengthUniform, Min: 1, Max: 4000}
	_, a := synthAll(t, c)
	c.Output = LengthSpec{Kind: LengthUniform, Min: 1, Max: 400}
	_, b := synthAll(t, c)
	for i := range a {
		if a[i].PromptTokens != b[i].PromptTokens {
			t.Fatalf("row %d: prompt %d with a fixed output, %d with a uniform output (same seed, same prompt spec)", i, a[i].PromptTokens, b[i].PromptTokens)
		}
	}
}

// A CSV syntax error names the file's line (metadata counted), the column
// by position and by header name, as a malformed value does.
func TestCSVSyntaxErrorNamesTheColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("# servesim.source=x\narrival_ns,prompt_tokens,output_tokens\n0,10,5\n5,1\"0,5\n"), 0o644)
	_, _, err := ReadAll(path)
	want := path + `: line 4, column 4 (prompt_tokens): bare " in non-quoted-field`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// A header row with a CSV syntax error names the file's line (metadata
// counted) and column once, not csv.Reader's line counted from the header.
func TestCSVHeaderSyntaxErrorNamesTheFileLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("# servesim.source=x\n# servesim.seed=1\narrival_ns,prompt\"_tokens,output_tokens\n0,10,5\n"), 0o644)
	_, _, err := ReadAll(path)
	want := path + `: line 3, column 18: want a header row: bare " in non-quoted-field`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}
