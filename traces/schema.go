package traces

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column names, in schema order. The README documents each one.
const (
	ColID            = "id"
	ColArrival       = "arrival_ns"
	ColPromptTokens  = "prompt_tokens"
	ColOutputTokens  = "output_tokens"
	ColPrefixHashes  = "prefix_hashes"
	ColSessionID     = "session_id"
	ColClass         = "class"
	ColWarmup        = "warmup"
	ColSourceFailed  = "source_failed"
	ColScheduledSend = "scheduled_send_ns"
	ColActualSend    = "actual_send_ns"
	ColStart         = "start_ns"
	ColFirstToken    = "first_token_ns"
	ColLastToken     = "last_token_ns"
	ColTokenTimes    = "token_times_ns"
	ColUsagePrompt   = "usage_prompt_tokens"
	ColUsageOutput   = "usage_completion_tokens"
	ColUsageCached   = "usage_cached_tokens"
	ColChunks        = "chunks"
	ColPreemptions   = "preemptions"
	ColHTTPStatus    = "http_status"
	ColError         = "error"
	ColFinishReason  = "finish_reason"
	ColOutputText    = "output_text"
	ColFailTime      = "failed_ns"
)

// fields is the trace schema. Input columns come first; observed columns
// are nullable. A file may leave out any nullable column.
var fields = []arrow.Field{
	{Name: ColID, Type: arrow.BinaryTypes.String},
	{Name: ColArrival, Type: arrow.PrimitiveTypes.Int64},
	{Name: ColPromptTokens, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColOutputTokens, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColPrefixHashes, Type: arrow.ListOf(arrow.PrimitiveTypes.Uint64), Nullable: true},
	{Name: ColSessionID, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: ColClass, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: ColWarmup, Type: arrow.FixedWidthTypes.Boolean},
	{Name: ColSourceFailed, Type: arrow.FixedWidthTypes.Boolean},
	{Name: ColScheduledSend, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: ColActualSend, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: ColStart, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: ColFirstToken, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: ColLastToken, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: ColTokenTimes, Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	{Name: ColUsagePrompt, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColUsageOutput, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColUsageCached, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColChunks, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColPreemptions, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColHTTPStatus, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: ColError, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: ColFinishReason, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: ColOutputText, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: ColFailTime, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

// Schema returns the Arrow schema of a trace carrying meta.
func Schema(meta Meta) *arrow.Schema {
	keys, values := meta.toKV()
	md := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &md)
}

// ColumnNames lists the schema's column names in order.
func ColumnNames() []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// batchBuilder accumulates Requests column by column in plain Go slices
// that are reused from batch to batch: the writers encode a batch before
// Write returns, so the memory is free again once they are done with it.
// This avoids Arrow builders' per-row checks and a fresh set of buffers
// (allocated, zeroed and collected) for every batch.
type batchBuilder struct {
	schema *arrow.Schema

	id, session, class, errText, finish, output strCol
	arrival, sched, actual, start, first, last  numCol[int64]
	failTime                                    numCol[int64]
	prompt, outTok                              numCol[int32]
	uPrompt, uOut, uCached, chunks, preempt     numCol[int32]
	status                                      numCol[int32]
	warmup, failed                              boolCol
	hashes                                      listCol[uint64]
	times                                       listCol[int64]
	rows                                        int
}

func newBatchBuilder(schema *arrow.Schema) *batchBuilder {
	return &batchBuilder{schema: schema}
}

func (b *batchBuilder) append(r *Request) {
	b.id.add(r.ID, true)
	b.arrival.add(r.Arrival, true)
	b.prompt.add(r.PromptTokens, true)
	b.outTok.add(r.OutputTokens, true)
	b.hashes.add(r.PrefixHashes, r.PrefixHashes != nil)
	b.session.add(r.SessionID, r.SessionID != "")
	b.class.add(r.Class, r.Class != "")
	b.warmup.add(r.Warmup)
	b.failed.add(r.SourceFailed)
	b.sched.add(r.ScheduledSend, r.ScheduledSend != Missing)
	b.actual.add(r.ActualSend, r.ActualSend != Missing)
	b.start.add(r.StartTime, r.StartTime != Missing)
	b.first.add(r.FirstToken, r.FirstToken != Missing)
	b.last.add(r.LastToken, r.LastToken != Missing)
	b.times.add(r.TokenTimes, r.TokenTimes != nil)
	b.uPrompt.add(r.UsagePrompt, r.UsagePrompt != Missing)
	b.uOut.add(r.UsageOutput, r.UsageOutput != Missing)
	b.uCached.add(r.UsageCached, r.UsageCached != Missing)
	b.chunks.add(r.Chunks, r.Chunks != Missing)
	b.preempt.add(r.Preemptions, r.Preemptions != Missing)
	b.status.add(r.HTTPStatus, r.HTTPStatus != Missing)
	b.errText.add(r.Error, r.Error != "")
	b.finish.add(r.FinishReason, r.FinishReason != "")
	b.output.add(r.OutputText, r.OutputText != "")
	b.failTime.add(r.FailTime, r.failedAt() != Missing)
	b.rows++
}

// full reports whether the batch should be written: at BatchRows rows, or
// earlier if a string or list column nears the limit of Arrow's 32-bit
// offsets.
func (b *batchBuilder) full() bool {
	const maxBytes = 1 << 30
	if b.rows >= BatchRows {
		return true
	}
	for _, c := range []*strCol{&b.id, &b.session, &b.class, &b.errText, &b.finish, &b.output} {
		if len(c.data) > maxBytes {
			return true
		}
	}
	return len(b.hashes.vals.vals) > maxBytes/8 || len(b.times.vals.vals) > maxBytes/8
}

// batch returns the rows appended so far as a record batch and resets the
// builder. The batch shares the builder's memory: release it before the
// next append.
func (b *batchBuilder) batch() arrow.RecordBatch {
	n := b.rows
	cols := []arrow.Array{
		b.id.array(n), b.arrival.array(arrow.PrimitiveTypes.Int64, n),
		b.prompt.array(arrow.PrimitiveTypes.Int32, n), b.outTok.array(arrow.PrimitiveTypes.Int32, n),
		b.hashes.array(fields[4].Type, arrow.PrimitiveTypes.Uint64, n),
		b.session.array(n), b.class.array(n), b.warmup.array(n), b.failed.array(n),
		b.sched.array(arrow.PrimitiveTypes.Int64, n), b.actual.array(arrow.PrimitiveTypes.Int64, n),
		b.start.array(arrow.PrimitiveTypes.Int64, n), b.first.array(arrow.PrimitiveTypes.Int64, n),
		b.last.array(arrow.PrimitiveTypes.Int64, n),
		b.times.array(fields[14].Type, arrow.PrimitiveTypes.Int64, n),
		b.uPrompt.array(arrow.PrimitiveTypes.Int32, n), b.uOut.array(arrow.PrimitiveTypes.Int32, n),
		b.uCached.array(arrow.PrimitiveTypes.Int32, n), b.chunks.array(arrow.PrimitiveTypes.Int32, n),
		b.preempt.array(arrow.PrimitiveTypes.Int32, n), b.status.array(arrow.PrimitiveTypes.Int32, n),
		b.errText.array(n), b.finish.array(n), b.output.array(n),
		b.failTime.array(arrow.PrimitiveTypes.Int64, n),
	}
	rec := array.NewRecordBatch(b.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	b.rows = 0
	return rec
}

// validity tracks a column's nulls as an Arrow validity bitmap.
type validity struct {
	bits  []byte
	nulls int
}

func (v *validity) add(n int, ok bool) {
	if n%8 == 0 {
		v.bits = append(v.bits, 0)
	}
	if ok {
		v.bits[n/8] |= 1 << (n % 8)
	} else {
		v.nulls++
	}
}

// buffer returns the bitmap, or nil (all valid) when there are no nulls.
func (v *validity) buffer() *memory.Buffer {
	if v.nulls == 0 {
		return nil
	}
	return memory.NewBufferBytes(v.bits)
}

func (v *validity) reset() { v.bits, v.nulls = v.bits[:0], 0 }

// numCol is a nullable fixed-width column; a null holds a zero value.
type numCol[T int32 | int64 | uint64] struct {
	vals []T
	validity
}

func (c *numCol[T]) add(v T, ok bool) {
	c.validity.add(len(c.vals), ok)
	if !ok {
		v = 0
	}
	c.vals = append(c.vals, v)
}

func (c *numCol[T]) array(dt arrow.DataType, n int) arrow.Array {
	d := array.NewData(dt, n, []*memory.Buffer{c.buffer(), memory.NewBufferBytes(arrow.GetBytes(c.vals))}, nil, c.nulls, 0)
	defer d.Release()
	c.vals = c.vals[:0]
	c.reset()
	return array.MakeFromData(d)
}

// strCol is a nullable string column.
type strCol struct {
	data    []byte
	offsets []int32
	validity
}

func (c *strCol) add(s string, ok bool) {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	c.validity.add(len(c.offsets)-1, ok)
	c.data = append(c.data, s...)
	c.offsets = append(c.offsets, int32(len(c.data)))
}

func (c *strCol) array(n int) arrow.Array {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{
		c.buffer(), memory.NewBufferBytes(arrow.GetBytes(c.offsets)), memory.NewBufferBytes(c.data),
	}, nil, c.nulls, 0)
	defer d.Release()
	c.data, c.offsets = c.data[:0], c.offsets[:1]
	c.reset()
	return array.MakeFromData(d)
}

// boolCol is a required boolean column, packed as a bitmap.
type boolCol struct {
	bits []byte
	n    int
}

func (c *boolCol) add(v bool) {
	if c.n%8 == 0 {
		c.bits = append(c.bits, 0)
	}
	if v {
		c.bits[c.n/8] |= 1 << (c.n % 8)
	}
	c.n++
}

func (c *boolCol) array(n int) arrow.Array {
	d := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nil, memory.NewBufferBytes(c.bits)}, nil, 0, 0)
	defer d.Release()
	c.bits, c.n = c.bits[:0], 0
	return array.MakeFromData(d)
}

// listCol is a nullable list of fixed-width values that are never null.
type listCol[T int64 | uint64] struct {
	offsets []int32
	vals    numCol[T]
	validity
}

func (c *listCol[T]) add(v []T, ok bool) {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	c.validity.add(len(c.offsets)-1, ok)
	c.vals.vals = append(c.vals.vals, v...)
	c.offsets = append(c.offsets, int32(len(c.vals.vals)))
}

func (c *listCol[T]) array(dt, elem arrow.DataType, n int) arrow.Array {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	vals := c.vals.array(elem, len(c.vals.vals))
	defer vals.Release()
	d := array.NewData(dt, n, []*memory.Buffer{c.buffer(), memory.NewBufferBytes(arrow.GetBytes(c.offsets))},
		[]arrow.ArrayData{vals.Data()}, c.nulls, 0)
	defer d.Release()
	c.offsets = c.offsets[:1]
	c.reset()
	return array.MakeFromData(d)
}

// batchDecoder reads Requests out of a record batch by column name, so files
// written with fewer observed columns (or in another order) still read.
type batchDecoder struct {
	id, session, class, errText, finish, output *array.String
	arrival, sched, actual, start, first, last  *array.Int64
	failTime                                    *array.Int64
	prompt, outTok                              *array.Int32
	uPrompt, uOut, uCached, chunks, preempt     *array.Int32
	status                                      *array.Int32
	warmup, failed                              *array.Boolean
	hashes, times                               *array.List
	hashVals                                    *array.Uint64
	timeVals                                    *array.Int64
	// listNulls: a list column's values hold a null somewhere (they never
	// do in servesim's own files), so each row's lists are checked.
	listNulls bool
	// negatives: an observed number column holds a value below zero, so
	// each row's are checked.
	negatives bool
	// firstRow is the file's row number of the batch's first row.
	firstRow int
	// converted holds the arrays toSchemaType made, released with the
	// decoder.
	converted []arrow.Array
}

// toSchemaType returns col as type t where that reads every value
// unchanged, as other tools write some columns: an int32 where t is int64,
// an int64 where t is int32 (an error if a value does not fit), a list
// whose elements cannot be null where they may, a large, view or
// dictionary string where t is a string. Else it returns col.
func (d *batchDecoder) toSchemaType(col arrow.Array, t arrow.DataType) (arrow.Array, error) {
	var out arrow.Array
	if t.ID() == arrow.STRING && isOtherString(col.DataType()) {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for i := range col.Len() {
			if isNullString(col, i) {
				b.AppendNull()
			} else {
				b.Append(col.ValueStr(i))
			}
		}
		out = b.NewArray()
		d.converted = append(d.converted, out)
		return out, nil
	}
	switch c := col.(type) {
	case *array.Int64:
		if t.ID() != arrow.INT32 {
			return col, nil
		}
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for i, v := range c.Int64Values() {
			switch {
			case c.IsNull(i):
				b.AppendNull()
			case v < math.MinInt32 || v > math.MaxInt32:
				return nil, fmt.Errorf("row %d: %d does not fit the column's type, int32", d.firstRow+i, v)
			default:
				b.Append(int32(v))
			}
		}
		out = b.NewArray()
	case *array.Int32:
		if t.ID() != arrow.INT64 {
			return col, nil
		}
		off := c.Data().Offset() // the validity bitmap starts before it
		vals := make([]int64, off+c.Len())
		for i, v := range c.Int32Values() {
			vals[off+i] = int64(v)
		}
		bufs := []*memory.Buffer{c.Data().Buffers()[0], memory.NewBufferBytes(arrow.GetBytes(vals))}
		data := array.NewData(t, c.Len(), bufs, nil, c.NullN(), off)
		defer data.Release()
		out = array.MakeFromData(data)
	case *array.List:
		lt, ok := t.(*arrow.ListType)
		if !ok || c.DataType().(*arrow.ListType).ElemField().Nullable || !arrow.TypeEqual(c.DataType().(*arrow.ListType).Elem(), lt.Elem()) {
			return col, nil
		}
		data := array.NewData(t, c.Len(), c.Data().Buffers(), c.Data().Children(), c.NullN(), c.Data().Offset())
		defer data.Release()
		out = array.MakeFromData(data)
	default:
		return col, nil
	}
	d.converted = append(d.converted, out)
	return out, nil
}

// isOtherString reports a string type other than the schema's own.
func isOtherString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	case arrow.DICTIONARY:
		v := t.(*arrow.DictionaryType).ValueType.ID()
		return v == arrow.STRING || v == arrow.LARGE_STRING
	}
	return false
}

// isNullString reports row i of col, a string column, null, or pointing
// at a null entry of its dictionary: Arrow lets a dictionary hold one.
func isNullString(col arrow.Array, i int) bool {
	if d, ok := col.(*array.Dictionary); ok && d.IsValid(i) {
		return d.Dictionary().IsNull(d.GetValueIndex(i))
	}
	return col.IsNull(i)
}

// release lets go of the arrays toSchemaType made.
func (d *batchDecoder) release() {
	for _, a := range d.converted {
		a.Release()
	}
	d.converted = nil
}

// newBatchDecoder checks rec's columns against the schema. Required input
// columns must be present; a column of the wrong type is an error, and so,
// as in CSV and JSONL, is an unknown or repeated one: a typo would
// otherwise read as a column not measured. firstRow is the file's row
// number of rec's first row, for errors.
func newBatchDecoder(rec arrow.RecordBatch, firstRow int) (_ *batchDecoder, err error) {
	d := &batchDecoder{firstRow: firstRow}
	defer func() {
		if err != nil {
			d.release()
		}
	}()
	sc := rec.Schema()
	for i, f := range sc.Fields() {
		if !slices.ContainsFunc(fields, func(k arrow.Field) bool { return k.Name == f.Name }) {
			return nil, fmt.Errorf("unknown column %q (known: %s)", f.Name, strings.Join(ColumnNames(), ","))
		}
		if j := sc.FieldIndices(f.Name)[0]; j != i {
			return nil, fmt.Errorf("column %q appears twice (fields %d and %d)", f.Name, j+1, i+1)
		}
	}
	for _, f := range fields {
		idx := sc.FieldIndices(f.Name)
		if len(idx) == 0 {
			if !f.Nullable {
				return nil, fmt.Errorf("missing required column %q", f.Name)
			}
			continue
		}
		col, err := d.toSchemaType(rec.Column(idx[0]), f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		if !arrow.TypeEqual(col.DataType(), f.Type) {
			return nil, fmt.Errorf("column %q: want type %s, got %s", f.Name, f.Type, col.DataType())
		}
		if !f.Nullable && col.NullN() > 0 {
			return nil, fmt.Errorf("column %q: %d null values in a required column", f.Name, col.NullN())
		}
		if col.NullN() == col.Len() && col.Len() > 0 {
			continue // all null: leave the field Missing without per-row checks
		}
		if b, ok := col.(*array.Boolean); ok && allFalse(b) {
			continue // the usual warmup and source_failed: no per-row reads
		}
		switch f.Name {
		case ColID:
			d.id = col.(*array.String)
		case ColArrival:
			d.arrival = col.(*array.Int64)
		case ColPromptTokens:
			d.prompt = col.(*array.Int32)
		case ColOutputTokens:
			d.outTok = col.(*array.Int32)
		case ColPrefixHashes:
			d.hashes = col.(*array.List)
			d.hashVals = d.hashes.ListValues().(*array.Uint64)
			d.listNulls = d.listNulls || d.hashVals.NullN() > 0
		case ColSessionID:
			d.session = col.(*array.String)
		case ColClass:
			d.class = col.(*array.String)
		case ColWarmup:
			d.warmup = col.(*array.Boolean)
		case ColSourceFailed:
			d.failed = col.(*array.Boolean)
		case ColScheduledSend:
			d.sched = col.(*array.Int64)
		case ColActualSend:
			d.actual = col.(*array.Int64)
		case ColStart:
			d.start = col.(*array.Int64)
		case ColFirstToken:
			d.first = col.(*array.Int64)
		case ColLastToken:
			d.last = col.(*array.Int64)
		case ColTokenTimes:
			d.times = col.(*array.List)
			d.timeVals = d.times.ListValues().(*array.Int64)
			d.listNulls = d.listNulls || d.timeVals.NullN() > 0
		case ColUsagePrompt:
			d.uPrompt = col.(*array.Int32)
		case ColUsageOutput:
			d.uOut = col.(*array.Int32)
		case ColUsageCached:
			d.uCached = col.(*array.Int32)
		case ColChunks:
			d.chunks = col.(*array.Int32)
		case ColPreemptions:
			d.preempt = col.(*array.Int32)
		case ColHTTPStatus:
			d.status = col.(*array.Int32)
		case ColError:
			d.errText = col.(*array.String)
		case ColFinishReason:
			d.finish = col.(*array.String)
		case ColOutputText:
			d.output = col.(*array.String)
		case ColFailTime:
			d.failTime = col.(*array.Int64)
		}
	}
	for _, c := range d.observedColumns() {
		d.negatives = d.negatives || c.hasNegative()
	}
	return d, nil
}

// observedColumn is one observed number column of a batch; both arrays
// are nil when the batch lacks it.
type observedColumn struct {
	name string
	i64  *array.Int64
	i32  *array.Int32
}

func (d *batchDecoder) observedColumns() []observedColumn {
	return []observedColumn{
		{name: ColScheduledSend, i64: d.sched}, {name: ColActualSend, i64: d.actual}, {name: ColStart, i64: d.start},
		{name: ColFirstToken, i64: d.first}, {name: ColLastToken, i64: d.last}, {name: ColFailTime, i64: d.failTime},
		{name: ColUsagePrompt, i32: d.uPrompt}, {name: ColUsageOutput, i32: d.uOut}, {name: ColUsageCached, i32: d.uCached},
		{name: ColChunks, i32: d.chunks}, {name: ColPreemptions, i32: d.preempt}, {name: ColHTTPStatus, i32: d.status},
	}
}

func (c observedColumn) hasNegative() bool {
	switch {
	case c.i64 != nil:
		return anyNegative(c.i64.Int64Values(), c.i64)
	case c.i32 != nil:
		return anyNegative(c.i32.Int32Values(), c.i32)
	}
	return false
}

// anyNegative reports a valid value below zero (a null slot may hold anything).
func anyNegative[T int32 | int64](vals []T, a arrow.Array) bool {
	for i, v := range vals {
		if v < 0 && a.IsValid(i) {
			return true
		}
	}
	return false
}

// negativeObserved reports row i's first observed number below zero.
func (d *batchDecoder) negativeObserved(i int) error {
	for _, c := range d.observedColumns() {
		switch {
		case c.i64 != nil && c.i64.IsValid(i):
			if err := checkObserved(c.name, c.i64.Value(i)); err != nil {
				return err
			}
		case c.i32 != nil && c.i32.IsValid(i):
			if err := checkObserved(c.name, int64(c.i32.Value(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// decode fills r from row i, reusing r's slices. It assigns every field
// (rather than calling Reset first) to keep the per-row cost down, and
// skips storing nil or "" over a field that already holds it: pointer
// stores pay for a GC write barrier whenever a collection is running.
func (d *batchDecoder) decode(i int, r *Request) {
	setStr(&r.ID, d.id, i)
	r.Arrival = 0
	if d.arrival != nil {
		r.Arrival = d.arrival.Value(i)
	}
	r.PromptTokens, r.OutputTokens = 0, 0
	if d.prompt != nil {
		r.PromptTokens = d.prompt.Value(i)
	}
	if d.outTok != nil {
		r.OutputTokens = d.outTok.Value(i)
	}
	if d.hashes != nil && d.hashes.IsValid(i) {
		lo, hi := d.hashes.ValueOffsets(i)
		r.PrefixHashes = append(nonNil(r.PrefixHashes), d.hashVals.Uint64Values()[lo:hi]...)
	} else if r.PrefixHashes != nil {
		r.PrefixHashes = nil
	}
	setStr(&r.SessionID, d.session, i)
	setStr(&r.Class, d.class, i)
	r.Warmup = d.warmup != nil && d.warmup.Value(i)
	r.SourceFailed = d.failed != nil && d.failed.Value(i)
	r.ScheduledSend = i64(d.sched, i)
	r.ActualSend = i64(d.actual, i)
	r.StartTime = i64(d.start, i)
	r.FirstToken = i64(d.first, i)
	r.LastToken = i64(d.last, i)
	if d.times != nil && d.times.IsValid(i) {
		lo, hi := d.times.ValueOffsets(i)
		r.TokenTimes = append(nonNil(r.TokenTimes), d.timeVals.Int64Values()[lo:hi]...)
	} else if r.TokenTimes != nil {
		r.TokenTimes = nil
	}
	r.UsagePrompt = i32(d.uPrompt, i)
	r.UsageOutput = i32(d.uOut, i)
	r.UsageCached = i32(d.uCached, i)
	r.Chunks = i32(d.chunks, i)
	r.Preemptions = i32(d.preempt, i)
	r.HTTPStatus = i32(d.status, i)
	setStr(&r.Error, d.errText, i)
	setStr(&r.FinishReason, d.finish, i)
	setStr(&r.OutputText, d.output, i)
	r.FailTime = i64(d.failTime, i)
}

// nullElement reports a null inside row i's prefix_hashes or
// token_times_ns: a hash or a time that is not there cannot be read as 0.
func (d *batchDecoder) nullElement(i int) error {
	for _, c := range []struct {
		name string
		list *array.List
		vals arrow.Array
	}{{ColPrefixHashes, d.hashes, d.hashVals}, {ColTokenTimes, d.times, d.timeVals}} {
		if c.list == nil || c.list.IsNull(i) || c.vals.NullN() == 0 {
			continue
		}
		lo, hi := c.list.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if c.vals.IsNull(int(j)) {
				return fmt.Errorf("column %s: element %d of the list is null", c.name, j-lo+1)
			}
		}
	}
	return nil
}

// allFalse reports whether a boolean array holds neither true nor null.
func allFalse(b *array.Boolean) bool {
	switch {
	case b.Len() == 0:
		return true
	case b.NullN() > 0:
		return false
	}
	d := b.Data()
	return bitutil.CountSetBits(d.Buffers()[1].Bytes(), d.Offset(), d.Len()) == 0
}

// setStr sets *dst to row i of a, or "" when a is absent or null.
func setStr(dst *string, a *array.String, i int) {
	if a != nil && a.IsValid(i) {
		*dst = a.Value(i)
	} else if *dst != "" {
		*dst = ""
	}
}

func i64(a *array.Int64, i int) int64 {
	if a == nil || a.IsNull(i) {
		return Missing
	}
	return a.Value(i)
}

func i32(a *array.Int32, i int) int32 {
	if a == nil || a.IsNull(i) {
		return Missing
	}
	return a.Value(i)
}

// nonNil returns s emptied, or an empty non-nil slice: a present but empty
// list differs from a null one.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s[:0]
}
