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
	out   traces.Writer
	next  int64                     // input index of the next row to write
	held  map[int64]*traces.Request // finished, waiting for an earlier row
	spare []*traces.Request         // recycled copies
}

func newRowOrder(out traces.Writer) *rowOrder {
	if out == nil {
		return nil
	}
	return &rowOrder{out: out, held: make(map[int64]*traces.Request)}
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
		o.held[idx] = c
		return nil
	}
	if err := o.write(idx, r); err != nil {
		return err
	}
	for {
		c, ok := o.held[o.next]
		if !ok {
			return nil
		}
		delete(o.held, o.next)
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
	idx := make([]int64, 0, len(o.held))
	for i := range o.held {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		if err := o.write(i, o.held[i]); err != nil {
			return err
		}
		delete(o.held, i)
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
