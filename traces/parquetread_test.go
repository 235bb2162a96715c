package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// layoutRequests mixes every kind of column: strings of varying length,
// observed columns null in some rows only, lists null, empty or not.
func layoutRequests(n int) []*Request {
	reqs := make([]*Request, n)
	for i := range reqs {
		r := &Request{}
		r.Reset()
		r.ID = fmt.Sprintf("req-%d", i)
		if i%97 == 0 {
			r.ID = "" // present but empty
		}
		r.Arrival, r.PromptTokens, r.OutputTokens = int64(i)*1000, int32(i%5000), int32(i%300)
		r.Warmup, r.SourceFailed = i%7 == 0, i%11 == 0
		if i%3 == 0 {
			r.PrefixHashes = []uint64{uint64(i), uint64(i) << 40}
		} else if i%5 == 0 {
			r.PrefixHashes = []uint64{}
		}
		if i%4 == 0 {
			r.SessionID = fmt.Sprint("s", i/4)
		}
		if i%2 == 0 {
			r.ActualSend, r.FirstToken, r.HTTPStatus = r.Arrival+5, r.Arrival+1e6, 200
			r.UsageOutput, r.FinishReason = r.OutputTokens, "stop"
			r.TokenTimes = []int64{r.Arrival + 1e6, r.Arrival + 2e6}
		}
		if i%13 == 0 {
			r.Error = "boom"
		}
		reqs[i] = r
	}
	return reqs
}

// writeParquetWith writes reqs with other writer properties than
// servesim's own: other tools' files, and older servesim files, differ.
func writeParquetWith(t *testing.T, path string, reqs []*Request, props *parquet.WriterProperties) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schema := Schema(Meta{Source: "layout"})
	w, err := pqarrow.NewFileWriter(schema, nopCloser{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	enc := &arrowEncoder{b: newBatchBuilder(schema), w: w}
	for _, r := range reqs {
		if err := enc.write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetLayouts reads files whose row groups, pages, encodings and
// compression differ from what servesim writes, so that batches straddle
// row groups and strings straddle pages.
func TestParquetLayouts(t *testing.T) {
	want := layoutRequests(150_000)
	layouts := map[string][]parquet.WriterProperty{
		"dictionary-small-pages": {
			parquet.WithMaxRowGroupLength(10_000),
			parquet.WithDataPageSize(4 << 10),
			parquet.WithCompression(compress.Codecs.Zstd),
		},
		"v2-snappy-no-dictionary": {
			parquet.WithMaxRowGroupLength(100_000),
			parquet.WithDictionaryDefault(false),
			parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Snappy),
		},
		"one-row-group-plain": {
			parquet.WithMaxRowGroupLength(1 << 20),
			parquet.WithDictionaryDefault(false),
		},
	}
	for name, opts := range layouts {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.parquet")
			writeParquetWith(t, path, want, parquet.NewWriterProperties(opts...))
			meta, got, err := ReadAll(path)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Source != "layout" {
				t.Errorf("meta = %+v", meta)
			}
			sameRows(t, got, want)
		})
	}
}

// TestParquetStringsStayValid keeps the ids of a whole file without
// cloning them: strings must not share memory that a later batch reuses.
func TestParquetStringsStayValid(t *testing.T) {
	reqs := layoutRequests(3 * BatchRows)
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteAll(path, Meta{}, reqs); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ids, sessions []string
	for r.Next() {
		ids = append(ids, r.At().ID)
		sessions = append(sessions, r.At().SessionID)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for i, q := range reqs {
		if ids[i] != q.ID || sessions[i] != q.SessionID {
			t.Fatalf("row %d: id %q session %q, want %q %q", i, ids[i], sessions[i], q.ID, q.SessionID)
		}
	}
}
