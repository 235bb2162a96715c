package sim

import (
	"fmt"
	"slices"

	"github.com/servesim/servesim/traces"
)

// rowOrder writes finished requests to a trace in input order. Requests
// finish out of order, but a trace's rows go in arrival order (readers
// reject an arrival earlier than the previous row's), so a row that
// finishes before an earlier request waits here: memory grows with the
// rows finished behind the oldest unfinished request, not with the trace.
type rowOrder struct {
	out  traces.Writer
	next int64 // input index of the next row to write
	// held is a ring of the rows finished behind next: row i waits at
	// held[i%len(held)] (next ≤ i < next+len(held)), nil until it comes.
	// Its length is a power of two that grows to the span waited over.
	held  []*traces.Request
	spare []*traces.Request // recycled copies
}

func newRowOrder(out traces.Writer) *rowOrder {
	if out == nil {
		return nil
	}
	return &rowOrder{out: out, held: make([]*traces.Request, 64)}
}

// slot is where row idx ≥ next waits, the ring grown to reach it.
func (o *rowOrder) slot(idx int64) **traces.Request {
	n := int64(len(o.held))
	for idx-o.next >= n {
		n *= 2
	}
	if n > int64(len(o.held)) {
		grown := make([]*traces.Request, n)
		for i := o.next; i < o.next+int64(len(o.held)); i++ {
			grown[i&(n-1)] = o.held[i&int64(len(o.held)-1)]
		}
		o.held = grown
	}
	return &o.held[idx&(n-1)]
}

// put takes request idx's finished row. r is the caller's and is reused
// after put returns, so a row that must wait is copied.
func (o *rowOrder) put(idx int64, r *traces.Request) error {
	if idx != o.next {
		var c *traces.Request
		if n := len(o.spare); n > 0 {
			c, o.spare = o.spare[n-1], o.spare[:n-1]
		} else {
			c = new(traces.Request)
		}
		hashes := c.PrefixHashes[:0]
		*c = *r
		c.PrefixHashes = append(hashes, r.PrefixHashes...)
		c.TokenTimes = slices.Clone(r.TokenTimes)
		*o.slot(idx) = c
		return nil
	}
	if err := o.write(idx, r); err != nil {
		return err
	}
	for {
		h := &o.held[o.next&int64(len(o.held)-1)]
		c := *h
		if c == nil {
			return nil
		}
		*h = nil
		if err := o.write(o.next, c); err != nil {
			return err
		}
		o.spare = append(o.spare, c)
	}
}

// flush writes the rows still waiting, in input order: at the end of a
// run that stopped early on an error, the requests before them never
// finished and have no row.
func (o *rowOrder) flush() error {
	if o == nil {
		return nil
	}
	mask := int64(len(o.held) - 1)
	for i, end := o.next, o.next+int64(len(o.held)); i < end; i++ {
		h := &o.held[i&mask]
		if *h == nil {
			continue
		}
		if err := o.write(i, *h); err != nil {
			return err
		}
		*h = nil
	}
	return nil
}

func (o *rowOrder) write(idx int64, r *traces.Request) error {
	if err := o.out.Write(r); err != nil {
		return fmt.Errorf("sim: writing request %d: %w", idx, err)
	}
	o.next = idx + 1
	return nil
}

// putNotRun writes request idx, read as r and due at issued, marked not
// run with reason, using row as scratch (r is left alone). Without a
// writer it does nothing.
func (o *rowOrder) putNotRun(idx int64, row, r *traces.Request, issued int64, reason string) error {
	if o == nil {
		return nil
	}
	hashes := row.PrefixHashes[:0]
	*row = *r
	row.PrefixHashes = append(hashes, r.PrefixHashes...)
	row.TokenTimes = nil
	markNotRun(row, issued, reason)
	return o.put(idx, row)
}
