package traces

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// batchBuilder appends Requests to Arrow builders, one per column.
type batchBuilder struct {
	rb *array.RecordBuilder

	id, session, class, errText, finish, output *array.StringBuilder
	arrival, sched, actual, start, first, last  *array.Int64Builder
	prompt, outTok                              *array.Int32Builder
	uPrompt, uOut, uCached, chunks, preempt     *array.Int32Builder
	status                                      *array.Int32Builder
	warmup, failed                              *array.BooleanBuilder
	hashes, times                               *array.ListBuilder
	hashVals                                    *array.Uint64Builder
	timeVals                                    *array.Int64Builder
	rows                                        int
	pending                                     [24]int // deferred nulls per column
}

func newBatchBuilder(mem memory.Allocator, schema *arrow.Schema) *batchBuilder {
	rb := array.NewRecordBuilder(mem, schema)
	f := rb.Fields()
	b := &batchBuilder{
		rb:      rb,
		id:      f[0].(*array.StringBuilder),
		arrival: f[1].(*array.Int64Builder),
		prompt:  f[2].(*array.Int32Builder),
		outTok:  f[3].(*array.Int32Builder),
		hashes:  f[4].(*array.ListBuilder),
		session: f[5].(*array.StringBuilder),
		class:   f[6].(*array.StringBuilder),
		warmup:  f[7].(*array.BooleanBuilder),
		failed:  f[8].(*array.BooleanBuilder),
		sched:   f[9].(*array.Int64Builder),
		actual:  f[10].(*array.Int64Builder),
		start:   f[11].(*array.Int64Builder),
		first:   f[12].(*array.Int64Builder),
		last:    f[13].(*array.Int64Builder),
		times:   f[14].(*array.ListBuilder),
		uPrompt: f[15].(*array.Int32Builder),
		uOut:    f[16].(*array.Int32Builder),
		uCached: f[17].(*array.Int32Builder),
		chunks:  f[18].(*array.Int32Builder),
		preempt: f[19].(*array.Int32Builder),
		status:  f[20].(*array.Int32Builder),
		errText: f[21].(*array.StringBuilder),
		finish:  f[22].(*array.StringBuilder),
		output:  f[23].(*array.StringBuilder),
	}
	b.hashVals = b.hashes.ValueBuilder().(*array.Uint64Builder)
	b.timeVals = b.times.ValueBuilder().(*array.Int64Builder)
	b.reserve()
	return b
}

func (b *batchBuilder) append(r *Request) {
	b.id.Append(r.ID)
	b.arrival.Append(r.Arrival)
	b.prompt.Append(r.PromptTokens)
	b.outTok.Append(r.OutputTokens)
	if r.PrefixHashes == nil {
		b.null(4)
	} else {
		b.ready(4)
		b.hashes.Append(true)
		b.hashVals.AppendValues(r.PrefixHashes, nil)
	}
	b.str(5, b.session, r.SessionID)
	b.str(6, b.class, r.Class)
	b.warmup.Append(r.Warmup)
	b.failed.Append(r.SourceFailed)
	b.i64(9, b.sched, r.ScheduledSend)
	b.i64(10, b.actual, r.ActualSend)
	b.i64(11, b.start, r.StartTime)
	b.i64(12, b.first, r.FirstToken)
	b.i64(13, b.last, r.LastToken)
	if r.TokenTimes == nil {
		b.null(14)
	} else {
		b.ready(14)
		b.times.Append(true)
		b.timeVals.AppendValues(r.TokenTimes, nil)
	}
	b.i32(15, b.uPrompt, r.UsagePrompt)
	b.i32(16, b.uOut, r.UsageOutput)
	b.i32(17, b.uCached, r.UsageCached)
	b.i32(18, b.chunks, r.Chunks)
	b.i32(19, b.preempt, r.Preemptions)
	b.i32(20, b.status, r.HTTPStatus)
	b.str(21, b.errText, r.Error)
	b.str(22, b.finish, r.FinishReason)
	b.str(23, b.output, r.OutputText)
	b.rows++
}

// Nulls are appended lazily: a column that stays null (an input trace's
// whole observed half) then costs one bulk append per batch instead of
// one per row.

// null defers a null in column i.
func (b *batchBuilder) null(i int) { b.pending[i]++ }

// ready appends column i's deferred nulls before a value.
func (b *batchBuilder) ready(i int) {
	if n := b.pending[i]; n > 0 {
		b.rb.Field(i).AppendNulls(n)
		b.pending[i] = 0
	}
}

func (b *batchBuilder) str(i int, sb *array.StringBuilder, s string) {
	if s == "" {
		b.null(i)
		return
	}
	b.ready(i)
	sb.Append(s)
}

func (b *batchBuilder) i64(i int, ib *array.Int64Builder, v int64) {
	if v == Missing {
		b.null(i)
		return
	}
	b.ready(i)
	ib.Append(v)
}

func (b *batchBuilder) i32(i int, ib *array.Int32Builder, v int32) {
	if v == Missing {
		b.null(i)
		return
	}
	b.ready(i)
	ib.Append(v)
}

// batch returns the rows appended so far as a record batch and resets the
// builder. The caller releases the batch.
func (b *batchBuilder) batch() arrow.RecordBatch {
	for i := range b.pending {
		b.ready(i)
	}
	b.rows = 0
	rec := b.rb.NewRecordBatch()
	b.reserve()
	return rec
}

// reserve sizes the always-filled columns for a whole batch up front, so
// they do not grow (and copy) as rows arrive.
func (b *batchBuilder) reserve() {
	for _, i := range []int{0, 1, 2, 3, 7, 8} {
		b.rb.Field(i).Reserve(BatchRows)
	}
}

func (b *batchBuilder) release() { b.rb.Release() }

// batchDecoder reads Requests out of a record batch by column name, so files
// written with fewer observed columns (or in another order) still read.
type batchDecoder struct {
	id, session, class, errText, finish, output *array.String
	arrival, sched, actual, start, first, last  *array.Int64
	prompt, outTok                              *array.Int32
	uPrompt, uOut, uCached, chunks, preempt     *array.Int32
	status                                      *array.Int32
	warmup, failed                              *array.Boolean
	hashes, times                               *array.List
	hashVals                                    *array.Uint64
	timeVals                                    *array.Int64
}

// newBatchDecoder checks rec's columns against the schema. Required input
// columns must be present; a column of the wrong type is an error.
func newBatchDecoder(rec arrow.RecordBatch) (*batchDecoder, error) {
	d := &batchDecoder{}
	sc := rec.Schema()
	for _, f := range fields {
		idx := sc.FieldIndices(f.Name)
		if len(idx) == 0 {
			if !f.Nullable {
				return nil, fmt.Errorf("missing required column %q", f.Name)
			}
			continue
		}
		col := rec.Column(idx[0])
		if !arrow.TypeEqual(col.DataType(), f.Type) {
			return nil, fmt.Errorf("column %q: want type %s, got %s", f.Name, f.Type, col.DataType())
		}
		if col.NullN() == col.Len() && col.Len() > 0 {
			continue // all null: leave the field Missing without per-row checks
		}
		if !f.Nullable && col.NullN() > 0 {
			return nil, fmt.Errorf("column %q: %d null values in a required column", f.Name, col.NullN())
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
		}
	}
	return d, nil
}

// decode fills r from row i, reusing r's slices. It assigns every field
// (rather than calling Reset first) to keep the per-row cost down.
func (d *batchDecoder) decode(i int, r *Request) {
	r.ID = str(d.id, i)
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
	} else {
		r.PrefixHashes = nil
	}
	r.SessionID = str(d.session, i)
	r.Class = str(d.class, i)
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
	} else {
		r.TokenTimes = nil
	}
	r.UsagePrompt = i32(d.uPrompt, i)
	r.UsageOutput = i32(d.uOut, i)
	r.UsageCached = i32(d.uCached, i)
	r.Chunks = i32(d.chunks, i)
	r.Preemptions = i32(d.preempt, i)
	r.HTTPStatus = i32(d.status, i)
	r.Error = str(d.errText, i)
	r.FinishReason = str(d.finish, i)
	r.OutputText = str(d.output, i)
}

func str(a *array.String, i int) string {
	if a == nil || a.IsNull(i) {
		return ""
	}
	return a.Value(i)
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
