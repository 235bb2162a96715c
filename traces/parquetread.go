package traces

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetRecords yields a Parquet file's rows as record batches of up to
// BatchRows rows. Flat int64, int32, string and required boolean columns
// (all a servesim trace has but its lists) are decoded page by page with
// the low-level column readers into buffers reused from batch to batch;
// pqarrow reads the rest. pqarrow builds every column of every batch in
// fresh, growing builders, which made most of a read's allocations and so
// most of its garbage collection.
type parquetRecords struct {
	sc   *arrow.Schema
	cols []columnSource
	arrs []arrow.Array
	cur  arrow.RecordBatch
	err  error
}

// columnSource reads one field of the file, batch by batch.
type columnSource interface {
	// next returns the next n rows, fewer at the end of the file. The
	// array may share memory with the one before: release that one first.
	next(n int) (arrow.Array, error)
	release()
}

// newParquetRecords reads the leaf columns in keep (nil: all of them).
func newParquetRecords(fr *pqarrow.FileReader, keep []int) (*parquetRecords, error) {
	pf := fr.ParquetReader()
	want := func(leaf int) bool { return true }
	if keep != nil {
		set := make(map[int]bool, len(keep))
		for _, c := range keep {
			set[c] = true
		}
		want = func(leaf int) bool { return set[leaf] }
	}
	full, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	meta := full.Metadata()
	r := &parquetRecords{}
	var fields []arrow.Field
	var rest []int // leaves left to pqarrow
	for i := range fr.Manifest.Fields {
		f := &fr.Manifest.Fields[i]
		if f.IsLeaf() && want(f.ColIndex) {
			if src := newFlatColumn(pf, f); src != nil {
				fields = append(fields, *f.Field)
				r.cols = append(r.cols, src)
				continue
			}
		}
		for _, leaf := range leaves(f) {
			if want(leaf) {
				rest = append(rest, leaf)
			}
		}
	}
	if len(rest) > 0 {
		groups := make([]int, pf.NumRowGroups())
		for i := range groups {
			groups[i] = i
		}
		rdrs, sc, err := fr.GetFieldReaders(context.Background(), rest, groups)
		if err != nil {
			r.Release()
			return nil, err
		}
		for i, rd := range rdrs {
			fields = append(fields, sc.Field(i))
			r.cols = append(r.cols, arrowColumn{rd})
		}
	}
	r.sc = arrow.NewSchema(fields, &meta)
	r.arrs = make([]arrow.Array, len(r.cols))
	return r, nil
}

func leaves(f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return []int{f.ColIndex}
	}
	var out []int
	for i := range f.Children {
		out = append(out, leaves(&f.Children[i])...)
	}
	return out
}

func (r *parquetRecords) Next() bool {
	r.releaseCur()
	if r.err != nil || len(r.cols) == 0 {
		return false
	}
	rows := 0
	for i, c := range r.cols {
		a, err := c.next(BatchRows)
		if err != nil {
			r.err = err
			return false
		}
		r.arrs[i] = a
		if i > 0 && a.Len() != rows {
			r.err = fmt.Errorf("column %q has %d rows where %q has %d", r.sc.Field(i).Name, a.Len(), r.sc.Field(0).Name, rows)
			return false
		}
		rows = a.Len()
	}
	if rows == 0 {
		return false
	}
	r.cur = array.NewRecordBatch(r.sc, r.arrs, int64(rows))
	return true
}

func (r *parquetRecords) releaseCur() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for i, a := range r.arrs {
		if a != nil {
			a.Release()
			r.arrs[i] = nil
		}
	}
}

func (r *parquetRecords) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *parquetRecords) Err() error                     { return r.err }

func (r *parquetRecords) Release() {
	r.releaseCur()
	for _, c := range r.cols {
		c.release()
	}
}

// arrowColumn is a field pqarrow reads.
type arrowColumn struct{ rd *pqarrow.ColumnReader }

func (c arrowColumn) next(n int) (arrow.Array, error) {
	ch, err := c.rd.NextBatch(int64(n))
	if err != nil {
		return nil, err
	}
	defer ch.Release()
	switch len(ch.Chunks()) {
	case 0:
		return array.MakeArrayOfNull(mem, ch.DataType(), 0), nil
	case 1:
		a := ch.Chunk(0)
		a.Retain()
		return a, nil
	}
	return array.Concatenate(ch.Chunks(), mem)
}

func (c arrowColumn) release() { c.rd.Release() }

// newFlatColumn returns a low-level reader for f, or nil if f is not a
// top-level column whose Parquet type maps straight onto its Arrow type.
func newFlatColumn(pf *file.Reader, f *pqarrow.SchemaField) columnSource {
	descr := pf.MetaData().Schema.Column(f.ColIndex)
	maxDef := int16(0)
	if f.Field.Nullable {
		maxDef = 1
	}
	if descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() != maxDef {
		return nil
	}
	lr := leafReader{pf: pf, col: f.ColIndex, nullable: maxDef > 0}
	switch phys := descr.PhysicalType(); {
	case f.Field.Type.ID() == arrow.INT64 && phys == parquet.Types.Int64:
		return &numColumn[int64]{leafReader: lr, dt: f.Field.Type}
	case f.Field.Type.ID() == arrow.INT32 && phys == parquet.Types.Int32:
		return &numColumn[int32]{leafReader: lr, dt: f.Field.Type}
	case f.Field.Type.ID() == arrow.STRING && phys == parquet.Types.ByteArray:
		return &stringColumn{leafReader: lr}
	case f.Field.Type.ID() == arrow.BOOL && phys == parquet.Types.Boolean && !lr.nullable:
		return &boolColumn{leafReader: lr}
	}
	return nil
}

// leafReader walks one column chunk after another, row group by row group.
type leafReader struct {
	pf       *file.Reader
	col      int
	nullable bool
	rg       int // next row group
	cr       file.ColumnChunkReader
	defs     []int16
}

// readChunk is the most rows read from a page at once: it bounds the
// scratch buffers that values and levels are decoded into.
const readChunk = 4096

// pageReader is the shape of the typed column chunk readers.
type pageReader[T any] interface {
	ReadBatchInPage(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
}

// readRows reads up to n rows (fewer at the end of the file), calling add
// for each run of rows from a single page with its non-null values and,
// when the column is nullable, one definition level per row (1: a value,
// 0: null). Values may point into the page and are valid only during add.
func readRows[T any](l *leafReader, vals *[]T, n int, add func(vals []T, defs []int16)) (int, error) {
	if *vals == nil {
		*vals = make([]T, readChunk)
	}
	if l.nullable && l.defs == nil {
		l.defs = make([]int16, readChunk)
	}
	got := 0
	for got < n {
		if l.cr == nil {
			if l.rg == l.pf.NumRowGroups() {
				break
			}
			cr, err := l.pf.RowGroup(l.rg).Column(l.col)
			if err != nil {
				return got, err
			}
			l.cr, l.rg = cr, l.rg+1
		}
		want := min(n-got, readChunk)
		var defs []int16
		if l.nullable {
			defs = l.defs[:want]
		}
		rows, nv, err := l.cr.(pageReader[T]).ReadBatchInPage(int64(want), (*vals)[:want], defs, nil)
		if err != nil {
			return got, err
		}
		if rows == 0 { // end of the column chunk
			l.release()
			continue
		}
		if defs != nil {
			defs = defs[:rows]
		}
		add((*vals)[:nv], defs)
		got += int(rows)
	}
	return got, nil
}

// release lets go of the current column chunk. Closing a reader only
// releases its buffers, so there is no error worth reporting.
func (l *leafReader) release() {
	if l.cr != nil {
		l.cr.Close()
		l.cr = nil
	}
}

// numColumn reads a flat int32 or int64 column into reused buffers.
type numColumn[T int32 | int64] struct {
	leafReader
	dt   arrow.DataType
	vals []T
	out  numCol[T]
}

func (c *numColumn[T]) next(n int) (arrow.Array, error) {
	c.out.vals = slices.Grow(c.out.vals, n)
	rows, err := readRows(&c.leafReader, &c.vals, n, func(vals []T, defs []int16) {
		if defs == nil {
			c.out.vals = append(c.out.vals, vals...) // required: no validity
			return
		}
		j := 0
		for _, d := range defs {
			var v T
			if d == 1 {
				v = vals[j]
				j++
			}
			c.out.add(v, d == 1)
		}
	})
	if err != nil {
		return nil, err
	}
	return c.out.array(c.dt, rows), nil
}

// stringColumn reads a flat string column. Each batch gets bytes of its
// own, copied from a reused scratch buffer once their size is known: the
// strings a Reader hands out point into them and so must never be
// overwritten (see idArena). Offsets and validity are reused.
type stringColumn struct {
	leafReader
	vals    []parquet.ByteArray
	scratch []byte
	out     strCol
}

func (c *stringColumn) next(n int) (arrow.Array, error) {
	c.out.data = c.scratch[:0]
	if len(c.out.offsets) == 0 {
		c.out.offsets = append(c.out.offsets, 0)
	}
	c.out.offsets = slices.Grow(c.out.offsets, n)
	rows, err := readRows(&c.leafReader, &c.vals, n, func(vals []parquet.ByteArray, defs []int16) {
		if defs == nil { // required: no validity
			for _, v := range vals {
				c.out.data = append(c.out.data, v...)
				c.out.offsets = append(c.out.offsets, int32(len(c.out.data)))
			}
			return
		}
		j := 0
		for _, d := range defs {
			if d == 1 {
				c.out.data = append(c.out.data, vals[j]...)
				j++
			}
			c.out.validity.add(len(c.out.offsets)-1, d == 1)
			c.out.offsets = append(c.out.offsets, int32(len(c.out.data)))
		}
	})
	if err != nil {
		return nil, err
	}
	if len(c.out.data) > math.MaxInt32 {
		return nil, fmt.Errorf("%d bytes of strings in %d rows overflow 32-bit offsets", len(c.out.data), rows)
	}
	c.scratch = c.out.data
	c.out.data = slices.Clone(c.out.data)
	return c.out.array(rows), nil
}

// boolColumn reads a required boolean column.
type boolColumn struct {
	leafReader
	vals []bool
	out  boolCol
}

func (c *boolColumn) next(n int) (arrow.Array, error) {
	rows, err := readRows(&c.leafReader, &c.vals, n, func(vals []bool, _ []int16) {
		for _, v := range vals {
			c.out.add(v)
		}
	})
	if err != nil {
		return nil, err
	}
	return c.out.array(rows), nil
}

// pageMemory is the allocator of a Parquet file's column chunk readers: it
// recycles the page buffers that each row group's readers would otherwise
// allocate afresh (half of what a read allocated). No decoded value keeps
// pointing into them: the flat columns copy strings out, and pqarrow builds
// its arrays with its own allocator.
type pageMemory struct {
	mu   sync.Mutex
	free [][]byte
}

// maxFreePages bounds the buffers kept: a few per column read.
const maxFreePages = 64

func (m *pageMemory) Allocate(n int) []byte {
	m.mu.Lock()
	best := -1
	for i, b := range m.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(m.free[best])) {
			best = i
		}
	}
	if best < 0 {
		m.mu.Unlock()
		return mem.Allocate(n)
	}
	b := m.free[best][:n]
	m.free[best] = m.free[len(m.free)-1]
	m.free = m.free[:len(m.free)-1]
	m.mu.Unlock()
	clear(b) // as fresh memory would be
	return b
}

func (m *pageMemory) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		if n > len(b) {
			clear(b[len(b):n])
		}
		return b[:n]
	}
	nb := m.Allocate(n)
	copy(nb, b)
	m.Free(b)
	return nb
}

func (m *pageMemory) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	m.mu.Lock()
	if len(m.free) < maxFreePages {
		m.free = append(m.free, b[:0])
	}
	m.mu.Unlock()
}
