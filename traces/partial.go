package traces

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PartialSuffix ends the name of a recording's crash-safe stream
// (replay.PartialPath): an Arrow IPC stream of the rows measured so far,
// in the order they completed, which a killed run leaves behind.
const PartialSuffix = ".partial.arrows"

// openPartial reads a recording's partial stream as a trace: every row it
// holds whole (a last message cut short by the kill is dropped), in
// arrival order. The rows are held in memory, as the run held their order.
func openPartial(path string) (*rowsReader, error) {
	r, err := OpenTolerant(path)
	if err != nil {
		return nil, err
	}
	return sortPartial(r)
}

// sortPartial is openPartial on r, opened by OpenTolerant, which it
// closes.
func sortPartial(r Reader) (*rowsReader, error) {
	defer r.Close()
	var rows []*Request
	for r.Next() {
		rows = append(rows, r.At().Clone())
	}
	if err := r.Err(); err != nil {
		return nil, err // it names the file
	}
	observeHeld(len(rows))
	slices.SortStableFunc(rows, func(a, b *Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
	cut := r.(interface{ Truncated() bool }).Truncated()
	return &rowsReader{meta: r.Meta(), rows: rows, i: -1, cutShort: cut}, nil
}

// observeHeld is told how many rows a partial stream's conversion holds
// in memory at once, each time that may have grown; tests set it.
var observeHeld = func(held int) {}

// openPartialStream reads a recording's partial stream in arrival order,
// as openPartial does; truncated says, once the read is done, whether its
// last message was cut short. A proxy's stream (proxy.status=partial),
// whose ids number its arrivals, is streamed (ArrivalOrder); any other
// (record's, whose ids are its input's) is held in memory to be sorted.
// Reading the proxy's stops once ctx is done, though rows are held ahead
// of a missing arrival and none is given meanwhile.
func openPartialStream(ctx context.Context, path string) (r Reader, truncated func() bool, err error) {
	r, err = OpenTolerant(path)
	if err != nil {
		return nil, nil, err
	}
	if r.Meta().Extra["proxy.status"] != "partial" {
		rows, err := sortPartial(r)
		if err != nil {
			return nil, nil, err
		}
		return rows, func() bool { return rows.cutShort }, nil
	}
	return ArrivalOrder(WithContext(ctx, r), path), r.(interface{ Truncated() bool }).Truncated, nil
}

// ErrCutShort marks the failure to read a partial stream whose last
// message was cut short (Import's refusal, Open's read error): Convert
// keeps the rows it holds whole and ConvertPartial says what was cut.
var ErrCutShort = errors.New("ends in a message cut short")

// importPartial is openPartial for Import, which reads whole traces only:
// a stream whose last message was cut short is refused, naming the rows
// it holds whole and the conversion that keeps them and says so.
func importPartial(path string) (Reader, error) {
	p, err := openPartial(path)
	if err != nil {
		return nil, err // no typed nil in the Reader
	}
	if p.cutShort {
		return nil, fmt.Errorf("%s: %w (its writer was killed mid-flush, or is still flushing; rows read whole: %d): convert it to keep those (servesim trace convert %s OUT.parquet)",
			path, ErrCutShort, len(p.rows), path)
	}
	return p, nil
}

func isPartial(path string) bool { return strings.HasSuffix(path, PartialSuffix) }

// rowsReader reads rows held in memory.
type rowsReader struct {
	meta     Meta
	rows     []*Request
	i        int
	cutShort bool // read from a partial stream whose last message was cut short
}

func (r *rowsReader) Meta() Meta { return r.meta }
func (r *rowsReader) Next() bool {
	if r.i+1 >= len(r.rows) {
		r.i = len(r.rows)
		return false
	}
	r.i++
	return true
}
func (r *rowsReader) At() *Request { return r.rows[r.i] }
func (r *rowsReader) Err() error   { return nil }
func (r *rowsReader) Close() error { return nil }
