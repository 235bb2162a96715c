package traces

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// ArrivalOrder reads r, a recorder's staging stream whose rows are in
// completion order and whose ids are their arrivals' sequence numbers (0,
// 1, 2, …, each once: the proxy's), in arrival order; name names r in
// errors. Only the rows that finished ahead of an earlier arrival still
// running are held in memory; those behind an arrival the stream lacks
// (cut short by a kill, or never written after a failed write) are held
// to the end and follow in sequence. Rows of one arrival time keep their
// completion order, as a stable sort by arrival would give. A read error
// (an interrupt, with r from WithContext) ends the rows given there.
func ArrivalOrder(r Reader, name string) Reader {
	return &arrivalReader{Reader: r, name: name, held: map[int64]positioned{}}
}

// positioned is a row with its place in the stream, counted from 1.
type positioned struct {
	row *Request
	pos int
}

type arrivalReader struct {
	Reader // the staging stream
	name   string
	held   map[int64]positioned // read ahead of an earlier arrival
	ready  []positioned         // in sequence, to give
	sorted int                  // the first rows of ready, of one arrival time, in completion order
	next   int64                // the next arrival to move to ready
	read   int                  // rows read
	done   bool                 // the stream is read to its end
	cur    *Request
	err    error
}

func (a *arrivalReader) Next() bool {
	for a.err == nil && !a.headComplete() && a.pull() {
	}
	if a.err != nil || len(a.ready) == 0 {
		return false
	}
	if a.sorted == 0 {
		a.sorted = a.orderHeadTies()
	}
	a.cur, a.ready = a.ready[0].row, a.ready[1:]
	a.sorted--
	return true
}

func (a *arrivalReader) At() *Request { return a.cur }

func (a *arrivalReader) Err() error {
	if a.err != nil {
		return a.err
	}
	return a.Reader.Err()
}

// headComplete says whether every row of the first ready row's arrival
// time is ready: a row of a later time follows them, or the stream ended.
func (a *arrivalReader) headComplete() bool {
	return len(a.ready) > 0 && (a.done || a.ready[len(a.ready)-1].row.Arrival != a.ready[0].row.Arrival)
}

// orderHeadTies puts the ready rows of the first one's arrival time in
// completion order and says how many there are. Once, not once per row
// given: all of them are ready (headComplete), and thousands can share
// an arrival that the clock's resolution did not tell apart.
func (a *arrivalReader) orderHeadTies() int {
	k := 1
	for k < len(a.ready) && a.ready[k].row.Arrival == a.ready[0].row.Arrival {
		k++
	}
	if k > 1 {
		slices.SortStableFunc(a.ready[:k], func(x, y positioned) int { return cmp.Compare(x.pos, y.pos) })
	}
	return k
}

// pull reads one row into held or ready, and at the stream's end moves
// every row still held to ready; it reports whether there may be more.
func (a *arrivalReader) pull() bool {
	if a.done {
		return false
	}
	if !a.Reader.Next() {
		if err := a.Reader.Err(); err != nil { // a read cut off gives no held row
			a.err = err
			return false
		}
		a.done = true
		for _, seq := range slices.Sorted(maps.Keys(a.held)) {
			a.ready = append(a.ready, a.held[seq])
		}
		clear(a.held)
		return false
	}
	a.read++
	row := a.Reader.At()
	seq, err := strconv.ParseInt(row.ID, 10, 64)
	if _, dup := a.held[seq]; err != nil || seq < a.next || dup {
		a.err = fmt.Errorf("%s: row %d: id %q: want the arrival's sequence number, each once", a.name, a.read, row.ID)
		return false
	}
	a.held[seq] = positioned{row.Clone(), a.read}
	for p, ok := a.held[a.next]; ok; p, ok = a.held[a.next] {
		a.ready = append(a.ready, p)
		delete(a.held, a.next)
		a.next++
	}
	observeHeld(len(a.held) + len(a.ready))
	return true
}
