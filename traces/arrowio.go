package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BatchRows is how many rows go into one record batch (and one Parquet row
// group at most): large enough to amortise per-batch costs, small enough to
// keep memory flat for any trace length.
const BatchRows = 64 * 1024

var mem = memory.DefaultAllocator

// batchWriter is the part of the Parquet and IPC writers encoders need.
type batchWriter interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

// arrowEncoder turns requests into record batches for a batchWriter.
type arrowEncoder struct {
	b *batchBuilder
	w batchWriter
}

func (e *arrowEncoder) write(r *Request) error {
	e.b.append(r)
	if e.b.full() {
		return e.writeBatch()
	}
	return nil
}

func (e *arrowEncoder) writeBatch() error {
	if e.b.rows == 0 {
		return nil
	}
	rec := e.b.batch()
	defer rec.Release()
	return e.w.Write(rec)
}

// Flush writes the pending rows as a batch.
func (e *arrowEncoder) Flush() error {
	return e.writeBatch()
}

func (e *arrowEncoder) close() error {
	return errors.Join(e.writeBatch(), e.w.Close())
}

func newParquetEncoder(f io.Writer, meta Meta) (encoder, error) {
	schema := Schema(meta)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		// zstd's fastest level: a trace compresses nearly as well, and the
		// default level spends a fifth of the write time encoding.
		parquet.WithCompressionLevel(1),
		parquet.WithMaxRowGroupLength(BatchRows),
		parquet.WithAllocator(mem),
		// No dictionaries: on unique ids and numbers they slow both writing
		// and reading several-fold, and even on low-cardinality strings
		// (session, class) zstd gets within a few percent of their size,
		// while pqarrow's dictionary path copies every value, nulls
		// included, into a fresh slice per batch.
		parquet.WithDictionaryDefault(false),
		// Arrival times rise steadily and lengths are small numbers:
		// delta bit-packing stores them in a third of the space, faster
		// than zstd on plain values, and zstd finds nothing left to
		// squeeze, so those pages skip it on both write and read.
		parquet.WithEncodingFor(ColArrival, parquet.Encodings.DeltaBinaryPacked),
		parquet.WithEncodingFor(ColPromptTokens, parquet.Encodings.DeltaBinaryPacked),
		parquet.WithEncodingFor(ColOutputTokens, parquet.Encodings.DeltaBinaryPacked),
		parquet.WithCompressionFor(ColArrival, compress.Codecs.Uncompressed),
		parquet.WithCompressionFor(ColPromptTokens, compress.Codecs.Uncompressed),
		parquet.WithCompressionFor(ColOutputTokens, compress.Codecs.Uncompressed),
	)
	w, err := pqarrow.NewFileWriter(schema, nopCloser{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	return &arrowEncoder{b: newBatchBuilder(schema), w: w}, nil
}

func newIPCEncoder(f io.Writer, meta Meta, stream bool) (encoder, error) {
	schema := Schema(meta)
	opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem), ipc.WithZstd()}
	if stream {
		// An empty batch at once: the writer sends the schema (and the
		// trace's metadata) only with its first batch, and a stream a crash
		// cuts off before any row must still read back.
		e := &arrowEncoder{b: newBatchBuilder(schema), w: ipc.NewWriter(f, opts...)}
		rec := e.b.batch()
		defer rec.Release()
		if err := e.w.Write(rec); err != nil {
			return nil, err
		}
		return e, nil
	}
	w, err := ipc.NewFileWriter(f, opts...)
	if err != nil {
		return nil, err
	}
	return &arrowEncoder{b: newBatchBuilder(schema), w: w}, nil
}

// nopCloser stops the Parquet writer from closing the file, which the
// atomic writer syncs and renames itself.
type nopCloser struct{ io.Writer }

// recordReader is the shape shared by the Parquet and IPC readers.
type recordReader interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// batchReader decodes requests out of a stream of record batches.
type batchReader struct {
	meta    Meta
	schema  *arrow.Schema
	rr      recordReader
	closers []func() error
	dec     *batchDecoder
	rows, i int
	n       int // rows read
	cur     Request
	err     error
}

func newBatchReader(schema *arrow.Schema, rr recordReader, closers ...func() error) (*batchReader, error) {
	md := schema.Metadata()
	meta, err := metaFromKV(md.Keys(), md.Values())
	if err != nil {
		return nil, err
	}
	r := &batchReader{meta: meta, schema: schema, rr: rr, closers: closers}
	r.cur.Reset()
	return r, nil
}

func (r *batchReader) Meta() Meta   { return r.meta }
func (r *batchReader) At() *Request { return &r.cur }
func (r *batchReader) Err() error   { return r.err }
func (r *batchReader) Next() bool {
	defer RecoverPanic(&r.err) // a panic returns false, Next's zero value
	for r.i >= r.rows {
		if r.err != nil || !r.rr.Next() {
			if r.err == nil {
				r.err = r.rr.Err()
			}
			if r.err == nil && r.dec == nil {
				r.err = checkColumns(r.schema)
			}
			return false
		}
		rec := r.rr.RecordBatch()
		dec, err := newBatchDecoder(rec, r.n+1)
		if err != nil {
			r.err = err
			return false
		}
		r.releaseDecoder()
		r.dec, r.rows, r.i = dec, int(rec.NumRows()), 0
	}
	r.dec.decode(r.i, &r.cur)
	r.i++
	r.n++
	if r.dec.listNulls {
		if err := r.dec.nullElement(r.i - 1); err != nil {
			r.err = fmt.Errorf("row %d: %w", r.n, err)
			return false
		}
	}
	if r.dec.negatives {
		if err := r.dec.negativeObserved(r.i - 1); err != nil {
			r.err = fmt.Errorf("row %d: %w", r.n, err)
			return false
		}
	}
	if err := r.cur.validateRead(); err != nil {
		r.err = fmt.Errorf("row %d: %w", r.n, err)
		return false
	}
	return true
}

// checkColumns checks the columns of a file that holds no batch (a
// Parquet file of no row group) as a batch's are checked: a file of the
// wrong columns is no empty trace.
func checkColumns(sc *arrow.Schema) error {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
		defer cols[i].Release()
	}
	rec := array.NewRecordBatch(sc, cols, 0)
	defer rec.Release()
	dec, err := newBatchDecoder(rec, 1)
	if err != nil {
		return err
	}
	dec.release()
	return nil
}

func (r *batchReader) releaseDecoder() {
	if r.dec != nil {
		r.dec.release()
	}
}

func (r *batchReader) Close() error {
	r.releaseDecoder()
	r.rr.Release()
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

func openParquet(path string) (_ Reader, err error) {
	defer RecoverPanic(&err)
	props := parquet.NewReaderProperties(&pageMemory{})
	props.BufferedStreamEnabled = true
	pf, err := OpenParquetFile(path, props)
	if err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		pf.Close()
		return nil, err
	}
	rr, err := newParquetRecords(fr, readColumns(pf))
	if err != nil {
		pf.Close()
		return nil, err
	}
	br, err := newBatchReader(rr.sc, rr, pf.Close)
	if err != nil {
		rr.Release()
		pf.Close()
		return nil, err
	}
	return br, nil
}

// ipcOptions are the IPC reader's options for a file of the given size:
// no message can be larger than the file, and no buffer absurdly large.
func ipcOptions(size int64) []ipc.Option {
	return []ipc.Option{
		ipc.WithAllocator(cappedAllocator{mem, allocLimit(size)}),
		ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size),
	}
}

// newStreamReader reads an IPC stream of the given size with ipcOptions.
// ipc.NewReader leaves the size limits out of the message reader it makes,
// so a corrupt length prefix had it allocate up to 2 GiB before finding
// the file short; a message reader made with the options keeps them.
// It reads no further than size: a stream still being written (a running
// recording's partial file) reads as it was when measured, where a batch
// flushed since, larger than the limits, would read as damage.
// f is read from its start.
func newStreamReader(f *os.File, size int64) (*streamRecords, error) {
	opts := ipcOptions(size)
	read := &byteCounter{r: io.LimitReader(f, size)}
	sr, err := ipc.NewReaderFromMessageReader(ipc.NewMessageReader(read, opts...), opts...)
	if err != nil {
		return nil, err
	}
	return &streamRecords{Reader: sr, src: f, read: read, size: size, msgEnd: read.n}, nil
}

// endOfStream is the IPC stream's end-of-stream marker: a continuation
// token and a zero length.
var endOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// streamRecords reads an IPC stream's record batches. A stream whose
// every message is whole and which ends in part of the end-of-stream
// marker (a writer killed in its Close) ends there: every row it holds is
// whole, as in a stream that lacks the marker altogether.
type streamRecords struct {
	*ipc.Reader
	src    io.ReaderAt
	read   *byteCounter
	size   int64
	msgEnd int64 // offset just past the last whole message read
}

func (r *streamRecords) Next() bool {
	if !r.Reader.Next() {
		return false
	}
	r.msgEnd = r.read.n // the message reader reads no further than a message
	return true
}

func (r *streamRecords) Err() error {
	err := r.Reader.Err()
	if errors.Is(err, io.ErrUnexpectedEOF) && r.endsInCutMarker() {
		return nil
	}
	return err
}

// endsInCutMarker reports whether the bytes past the last whole message
// are a cut end-of-stream marker. The writer sends the marker in one
// write and a batch's continuation token in another, before its length:
// a kill between those leaves the token alone, which ends a batch cut
// short, not the marker. A shorter or longer cut is a write cut off by a
// crash.
func (r *streamRecords) endsInCutMarker() bool {
	n := r.size - r.msgEnd
	if n <= 0 || n >= int64(len(endOfStream)) || n == 4 {
		return false
	}
	tail := make([]byte, n)
	if _, err := r.src.ReadAt(tail, r.msgEnd); err != nil {
		return false
	}
	return bytes.HasPrefix(endOfStream, tail)
}

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// openChecked opens an IPC file or stream after checking its schema.
func openChecked(path string, isFile bool) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil {
		err = checkIPCSchema(f, st.Size(), isFile)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func openIPC(path string) (_ Reader, err error) {
	defer RecoverPanic(&err)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The IPC file format starts with the magic "ARROW1"; the stream format does not.
	magic := make([]byte, 6)
	_, err = io.ReadFull(f, magic)
	isFile := err == nil && string(magic) == "ARROW1"
	f.Close()
	f, size, err := openChecked(path, isFile)
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC file: %w", err)
	}
	if isFile {
		fr, err := ipc.NewFileReader(f, ipcOptions(size)...)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("not a readable Arrow IPC file: %w", err)
		}
		return newBatchReader(fr.Schema(), &ipcFileRecords{fr: fr}, f.Close)
	}
	sr, err := newStreamReader(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("not a readable Arrow IPC stream: %w", err)
	}
	return newBatchReader(sr.Schema(), sr, f.Close)
}

// ipcFileRecords adapts the random-access IPC file reader to Next/RecordBatch.
type ipcFileRecords struct {
	fr  *ipc.FileReader
	i   int
	cur arrow.RecordBatch
	err error
}

func (r *ipcFileRecords) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.i >= r.fr.NumRecords() {
		return false
	}
	rec, err := r.fr.RecordBatchAt(r.i)
	if err != nil {
		r.err = err
		return false
	}
	r.i++
	r.cur = rec
	return true
}

func (r *ipcFileRecords) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *ipcFileRecords) Err() error                     { return r.err }
func (r *ipcFileRecords) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.fr.Close()
}

// OpenTolerant opens an Arrow IPC stream (the .arrows format) that a killed
// or crashed writer left behind: the file of a Writer that never closed
// (its temporary path, whatever the extension) or a copy of it. A final
// message cut short by the crash ends the stream instead of failing it:
// the reader yields every complete batch, Err stays nil, and the returned
// Reader's Truncated() bool method (assert interface{ Truncated() bool })
// reports whether a partial tail was dropped; a cut end-of-stream marker
// drops nothing (streamRecords). Any other damage is still an
// error. A file with no complete schema message (killed before its first
// flush) cannot be opened. A stream still being written reads as it was
// when opened: rows flushed since are not read.
func OpenTolerant(path string) (_ Reader, err error) {
	defer RecoverPanic(&err)
	f, size, err := openChecked(path, false)
	if err != nil {
		if pe := pathError(path, err); pe != nil {
			return nil, pe
		}
		return nil, fmt.Errorf("%s: not a readable Arrow IPC stream: %w", path, err)
	}
	sr, err := newStreamReader(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a readable Arrow IPC stream: %w", path, err)
	}
	tr := &tolerantRecords{streamRecords: sr}
	br, err := newBatchReader(sr.Schema(), tr, f.Close)
	if err != nil {
		sr.Release()
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &tolerantReader{batchReader: br, rec: tr, path: path}, nil
}

// tolerantRecords turns an unexpected EOF inside a message into the end of
// the stream.
type tolerantRecords struct {
	*streamRecords
	truncated bool
}

func (r *tolerantRecords) Err() error {
	err := r.streamRecords.Err()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		r.truncated = true
		return nil
	}
	return err
}

type tolerantReader struct {
	*batchReader
	rec  *tolerantRecords
	path string
}

// Err names the file, as Open's readers do.
func (r *tolerantReader) Err() error {
	if err := r.batchReader.Err(); err != nil {
		return fmt.Errorf("%s: %w", r.path, err)
	}
	return nil
}

// Truncated reports whether the stream ended in a partial message.
func (r *tolerantReader) Truncated() bool { return r.rec.truncated }

// readColumns lists the Parquet leaf columns worth reading: it leaves out
// nullable columns whose statistics say every row group holds only nulls
// (an input trace's whole observed half, and often session and class),
// which the decoder then treats as absent. nil means all columns, also
// when nothing would be left (the decoder then names a missing column).
func readColumns(pf *file.Reader) []int {
	md := pf.MetaData()
	sc := md.Schema
	var keep []int
	skipped := false
	for i := 0; i < sc.NumColumns(); i++ {
		root, _, _ := strings.Cut(sc.Column(i).Path(), ".")
		// A list column's null count also counts empty lists: only a flat
		// column's statistics say every row is null.
		if skippableColumn(root) && sc.Column(i).MaxRepetitionLevel() == 0 && allNull(md, i) {
			skipped = true
			continue
		}
		keep = append(keep, i)
	}
	if !skipped || len(keep) == 0 {
		return nil
	}
	return keep
}

// skippableColumn reports whether a column may be left unread when it is
// all null: any nullable column, since a column of nulls decodes exactly
// like an absent one (Missing, "" or nil).
func skippableColumn(name string) bool {
	for _, f := range fields {
		if f.Name == name {
			return f.Nullable
		}
	}
	return false
}

func allNull(md *metadata.FileMetaData, col int) bool {
	if md.NumRowGroups() == 0 {
		return false
	}
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		cc, err := rg.ColumnChunk(col)
		if err != nil {
			return false
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasNullCount() || st.NullCount() != rg.NumRows() {
			return false
		}
	}
	return true
}

// CountTolerant is how many rows the stream at path reads back through
// OpenTolerant: the rows a killed or failed writer left whole there.
func CountTolerant(path string) (int, error) {
	r, err := OpenTolerant(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for r.Next() {
		n++
	}
	return n, r.Err()
}

// KeepRows leaves the rows a failed flush or close (a full disk) left in
// the stream at path there for inspection, says how many of the written
// rows it holds, and reports whether it kept them: a stream that holds
// none is removed, else the next session or run would refuse to start
// beside it.
func KeepRows(path string, written int) (note string, kept bool) {
	n, err := CountTolerant(path)
	switch {
	case err != nil:
		return fmt.Sprintf("the rows flushed before the error may stay in %s, which does not read back: %v", path, err), true
	case n == 0 && written == 1:
		os.Remove(path)
		return "the 1 row written was not kept: the failed write lost it", false
	case n == 0:
		os.Remove(path)
		return fmt.Sprintf("none of the %d rows written were kept: the failed write lost them", written), false
	case n == 1 && written == 1:
		return fmt.Sprintf("the 1 row written so far stays in %s", path), true
	case n == written:
		return fmt.Sprintf("the %d rows written so far stay in %s", n, path), true
	}
	stay, lost := "stay", "the others were lost"
	if n == 1 {
		stay = "stays"
	}
	if written-n == 1 {
		lost = "the other was lost"
	}
	return fmt.Sprintf("%d of the %d rows written %s in %s; %s with the failed write", n, written, stay, path, lost), true
}
