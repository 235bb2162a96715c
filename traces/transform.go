package traces

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Copy writes every request of r to w and returns how many it wrote,
// stopping with an error once ctx is done. It neither closes nor aborts w.
func Copy(ctx context.Context, w Writer, r Reader) (int, error) {
	r = WithContext(ctx, r)
	n := 0
	for r.Next() {
		if err := w.Write(r.At()); err != nil {
			return n, err
		}
		n++
	}
	return n, r.Err()
}

// WriteTrace streams r into a new trace at path (format by extension)
// with r's metadata. On any error, an interrupt (ctx done) included,
// nothing is left at path. r is closed.
func WriteTrace(ctx context.Context, path string, r Reader) (int, error) {
	w, err := Create(path, r.Meta())
	if err != nil {
		return 0, errors.Join(err, r.Close())
	}
	n, err := Copy(ctx, w, r)
	if err = errors.Join(err, r.Close()); err != nil {
		w.Abort()
		if ctx.Err() != nil {
			err = fmt.Errorf("%s: not written: %w", path, err)
		}
		return n, err
	}
	return n, w.Close()
}

// Convert rewrites the trace at in to out, choosing both formats by
// extension and keeping the metadata. A recording's partial stream
// (PartialSuffix) gives the rows it holds whole, in arrival order. Rows
// are checked as Import checks a servesim file's: in arrival order, token
// counts at most DefaultMaxTokens.
func Convert(ctx context.Context, in, out string) (int, error) {
	n, _, err := ConvertPartial(ctx, in, out)
	return n, err
}

// ConvertPartial is Convert that also reports whether in is a recording's
// partial stream whose read ended in a message cut short (by a kill, or a
// flush under way): the rows of that message are not in out. It is decided
// from the read that wrote out, as the stream may be still being written.
func ConvertPartial(ctx context.Context, in, out string) (rows int, cutShort bool, err error) {
	if !isPartial(in) {
		n, err := convertFrom(ctx, Open, in, out)
		return n, false, err
	}
	cut := func() bool { return false }
	n, err := convertFrom(ctx, func(path string) (Reader, error) {
		r, truncated, err := openPartialStream(ctx, path)
		if err == nil {
			cut = truncated
		}
		return r, err
	}, in, out)
	return n, cut(), err
}

func convertFrom(ctx context.Context, open func(string) (Reader, error), in, out string) (int, error) {
	r, err := open(in)
	if err != nil {
		return 0, err
	}
	return WriteTrace(ctx, out, &orderChecker{Reader: r, name: in, maxTokens: DefaultMaxTokens})
}

// ctxCheckRows is how often WithContext looks at its context: rarely
// enough to cost nothing per row, often enough to stop within a
// millisecond or so.
const ctxCheckRows = 1024

// WithContext wraps r so that reading stops once ctx is done: Next returns
// false and Err says the read was interrupted. ctx is checked before the
// first row and every ctxCheckRows rows.
func WithContext(ctx context.Context, r Reader) Reader {
	return &ctxReader{Reader: r, ctx: ctx}
}

type ctxReader struct {
	Reader
	ctx context.Context
	n   int
	err error
}

func (c *ctxReader) Next() bool {
	if c.err != nil {
		return false
	}
	if c.n%ctxCheckRows == 0 {
		if err := c.ctx.Err(); err != nil {
			c.err = fmt.Errorf("interrupted after %d rows: %w", c.n, err)
			return false
		}
	}
	if !c.Reader.Next() {
		return false
	}
	c.n++
	return true
}

func (c *ctxReader) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.Reader.Err()
}

// copyRequest deep-copies src into dst, reusing dst's slices. Strings are
// shared (they are immutable).
func copyRequest(dst, src *Request) {
	hashes, times := dst.PrefixHashes, dst.TokenTimes
	*dst = *src
	dst.PrefixHashes, dst.TokenTimes = nil, nil
	if src.PrefixHashes != nil {
		dst.PrefixHashes = append(nonNil(hashes), src.PrefixHashes...)
	}
	if src.TokenTimes != nil {
		dst.TokenTimes = append(nonNil(times), src.TokenTimes...)
	}
}

// Spread spreads requests that share one arrival time evenly and
// deterministically over [t, t+width), where width is quantum or the gap
// to the next distinct arrival, whichever is smaller, so order is kept:
// the i-th of k requests at t arrives at t + i*width/k. It buffers one
// group of equal arrivals, so memory is bounded by the largest group.
// The result is an input trace: observed columns were measured under the
// arrivals as they were (a moved row would be answered before it
// arrived) and are cleared, as Scale clears them.
func Spread(r Reader, quantum int64) Reader {
	return &spreader{src: r, quantum: quantum}
}

type spreader struct {
	src      Reader
	quantum  int64
	buf      []*Request
	n, pos   int
	pending  Request
	havePend bool
	done     bool
}

func (s *spreader) Meta() Meta   { return s.src.Meta() }
func (s *spreader) Err() error   { return s.src.Err() }
func (s *spreader) Close() error { return s.src.Close() }
func (s *spreader) At() *Request { return s.buf[s.pos-1] }

func (s *spreader) slot(i int) *Request {
	for len(s.buf) <= i {
		s.buf = append(s.buf, &Request{})
	}
	return s.buf[i]
}

func (s *spreader) Next() bool {
	if s.pos < s.n {
		s.pos++
		return true
	}
	s.n, s.pos = 0, 0
	if s.havePend {
		copyRequest(s.slot(0), &s.pending)
		s.n, s.havePend = 1, false
	}
	for !s.done {
		if !s.src.Next() {
			s.done = true
			break
		}
		cur := s.src.At()
		if s.n > 0 && cur.Arrival != s.buf[0].Arrival {
			copyRequest(&s.pending, cur)
			s.havePend = true
			break
		}
		copyRequest(s.slot(s.n), cur)
		s.n++
	}
	if s.n == 0 {
		return false
	}
	t, width, k := s.buf[0].Arrival, s.quantum, int64(s.n)
	if s.havePend && s.pending.Arrival-t < width {
		width = s.pending.Arrival - t
	}
	if t > math.MaxInt64-width {
		width = math.MaxInt64 - t
	}
	for i := int64(1); i < k; i++ {
		s.buf[i].Arrival = t + width/k*i + (width%k)*i/k
	}
	for _, r := range s.buf[:k] {
		if r.Observed() {
			r.ClearObserved()
		}
	}
	s.pos = 1
	return true
}

// Slice keeps the requests arriving in [from, to) and at most head of them
// (head <= 0: no limit; to <= 0: no end), re-basing every time column to
// the window start. A recording whose observed times are off its
// arrivals' clock (offArrivalClock), cut from a later start, becomes an
// input trace, its observed columns cleared. The input must be sorted by
// arrival (importers guarantee it): reading stops at the first arrival >= to.
func Slice(r Reader, from, to int64, head int) Reader {
	m := r.Meta().Clone()
	desc := "from_ns=" + strconv.FormatInt(from, 10)
	if to > 0 {
		desc += " to_ns=" + strconv.FormatInt(to, 10)
	}
	if head > 0 {
		desc += " head=" + strconv.Itoa(head)
	}
	// A window cut in scaled, spread or re-based time (dropped leading
	// failures move the start) holds other requests than the same window
	// cut before: Workload must tell the two apart.
	if sc := scaleProduct(m.Extra["time_scale"]); sc != "" {
		desc += " at_time_scale=" + sc
	}
	if sp := m.Extra["spread_ns"]; sp != "" {
		desc += " after_spread_ns=" + sp
	}
	if strings.HasPrefix(m.Extra["drop_failed"], "true") {
		desc += " after_drop_failed"
	}
	if prev := m.Extra["slice"]; prev != "" {
		desc = prev + "; " + desc
	}
	m.Set("slice", desc)
	// A proxy recording's times count from proxy.start: re-based, they
	// count from the window start.
	if t, err := time.Parse(time.RFC3339Nano, m.Extra["proxy.start"]); err == nil && from != 0 {
		m.Set("proxy.start", t.Add(time.Duration(from)).Format(time.RFC3339Nano))
	}
	// Re-based by from, the times of a recording off its arrivals' clock would
	// be wrong (before the trace began, even). The slice is then an
	// input trace, as Scale makes one. A window from 0 (--head or --to
	// alone) moves no time: its rows keep the times they were measured at.
	unmoored := from != 0 && offArrivalClock(m)
	if unmoored {
		asInput(&m)
	}
	return &slicer{Reader: r, meta: m, from: from, to: to, head: head, clearObserved: unmoored}
}

type slicer struct {
	Reader
	meta     Meta
	from, to int64
	head, n  int
	done     bool

	clearObserved bool // the observed times are not on the arrivals' clock
}

func (s *slicer) Meta() Meta { return s.meta }

func (s *slicer) Next() bool {
	for !s.done && s.Reader.Next() {
		r := s.Reader.At()
		if r.Arrival < s.from {
			continue
		}
		if (s.to > 0 && r.Arrival >= s.to) || (s.head > 0 && s.n >= s.head) {
			break
		}
		s.n++
		if s.clearObserved {
			r.ClearObserved()
		}
		shiftTimes(r, -s.from)
		return true
	}
	s.done = true
	return false
}

// offArrivalClock says whether m is a recording whose observed times are
// not on the arrivals' clock: a live closed loop's or a time-scaled one's
// (the run's own clock), or a simulated closed loop's, whose latencies run
// from the issue before the arrival, so that re-basing them with the
// arrivals would put issues before the trace began.
func offArrivalClock(m Meta) bool {
	tsc := m.Extra["replay.time_scale"]
	return m.Extra["replay.arrival"] == "closed" || m.Extra["closed_loop"] != "" || tsc != "" && tsc != "1"
}

// shiftTimes adds d to every time column of r that was measured.
func shiftTimes(r *Request, d int64) {
	if d == 0 {
		return
	}
	r.Arrival += d
	for _, p := range []*int64{&r.ScheduledSend, &r.ActualSend, &r.StartTime, &r.FirstToken, &r.LastToken, &r.FailTime} {
		if *p != Missing {
			*p += d
		}
	}
	for i := range r.TokenTimes {
		r.TokenTimes[i] += d
	}
}

// runKeys are Extra keys that describe the run which measured a trace (a
// simulated plan and its step model, profile, catalog, closed loop and
// session waiting), besides the replay.* and proxy.* settings of a live
// one.
var runKeys = []string{"plan", "step_model", "profile", "profile_sha256", "catalog_sha256", "closed_loop", "closed_loop_gap", "session_wait"}

// IsRunKey says whether Extra key k describes the run which measured a
// trace: a live one's replay.* and proxy.* settings, or a simulated one's
// plan, step model, profile, catalog, closed loop and session waiting.
// A trace made from it keeps such a key under an input_ name.
func IsRunKey(k string) bool {
	return strings.HasPrefix(k, "replay.") || strings.HasPrefix(k, "proxy.") || slices.Contains(runKeys, k)
}

// isMeasuredSource says whether a trace of source src holds times a run
// measured: a live replay's, a proxy recording's or a simulation's, not an
// import's or a synthetic draw's.
func isMeasuredSource(src string) bool {
	return src == "live" || src == "proxy" || src == "simulated"
}

// asInput turns m, the metadata of a trace whose observed columns are
// cleared, into an input trace's: the run that measured them no longer
// describes any row (MoveRunToInput). No new run replaces it.
func asInput(m *Meta) {
	m.MoveRunToInput(false)
}

// MoveRunToInput keeps what in m described the run that measured its rows
// under input_ names and clears it from m: the source, engine, engine
// arguments, device, batch policy, precision, weight version and build,
// and the run's settings (IsRunKey). newRun says another run takes its
// place (record, simulate): then the source and build move whatever they
// are. Else (an input trace: scale, spread, an unmoored slice) they move
// only when a run measured the rows (live, proxy, simulated): an
// import's or a synthetic draw's still describe them. The input_ names
// describe one run: when such a run moves, every earlier input_ key goes
// first, since it named the input's input and, kept beside a field this
// run left empty, would pass for this run's. A trace with no run of its
// own (scaled already) keeps its input_ keys: they still name its rows'
// run. m.Extra is changed in place: clone a shared Meta first.
func (m *Meta) MoveRunToInput(newRun bool) {
	measured := newRun || isMeasuredSource(m.Source)
	fields := []metaString{{"engine", &m.Engine}, {"engine_args", &m.EngineArgs}, {"device", &m.Device},
		{"batch_policy", &m.BatchPolicy}, {"precision", &m.Precision}, {"weight_version", &m.WeightVersion}}
	if measured {
		fields = append(fields, metaString{"source", &m.Source}, metaString{"tool_version", &m.ToolVersion})
		if m.namesARun(fields) {
			m.dropInputKeys()
		}
	}
	for _, f := range fields {
		if *f.val != "" {
			m.Set("input_"+f.key, *f.val)
			*f.val = ""
		}
	}
	for k, v := range m.Extra {
		if IsRunKey(k) { // an input_ name never is: it is not visited again
			delete(m.Extra, k)
			m.Set("input_"+k, v)
		}
	}
}

// namesARun says whether m describes a run of its own: one of fields, or
// a run setting (IsRunKey), is set.
func (m *Meta) namesARun(fields []metaString) bool {
	for _, f := range fields {
		if *f.val != "" {
			return true
		}
	}
	for k := range m.Extra {
		if IsRunKey(k) {
			return true
		}
	}
	return false
}

// dropInputKeys deletes every input_ key of m.Extra, the names of an
// earlier run.
func (m *Meta) dropInputKeys() {
	for k := range m.Extra {
		if strings.HasPrefix(k, "input_") {
			delete(m.Extra, k)
		}
	}
}

// Scale multiplies every arrival by factor (> 0): 2 stretches the trace to
// twice its length, 0.5 doubles the rate. Use 1/rateFactor to scale the
// rate. The result is an input trace: observed columns no longer describe
// it and are cleared, and the run that measured them is the input's
// (asInput). Arrivals are rounded to the nearest ns.
func Scale(r Reader, factor float64) (Reader, error) {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("scale factor must be positive and finite, got %v", factor)
	}
	m := r.Meta().Clone()
	f := strconv.FormatFloat(factor, 'g', -1, 64)
	if prev := m.Extra["time_scale"]; prev != "" {
		f = prev + "*" + f
	}
	m.Set("time_scale", f)
	asInput(&m)
	return &scaler{Reader: r, meta: m, factor: factor}, nil
}

type scaler struct {
	Reader
	meta   Meta
	factor float64
	row    int
	err    error
}

func (s *scaler) Meta() Meta { return s.meta }

func (s *scaler) Next() bool {
	if s.err != nil || !s.Reader.Next() {
		return false
	}
	s.row++
	r := s.Reader.At()
	// Bounded as every trace's arrivals are, so that times derived from
	// them (by the simulator, say) cannot overflow an int64.
	a := math.Round(float64(r.Arrival) * s.factor)
	if a > maxArrival {
		s.err = fmt.Errorf("row %d: scaled arrival %.0f ns is past 2^32 s (%d ns), the latest a trace holds", s.row, a, int64(maxArrival))
		return false
	}
	r.ClearObserved()
	r.Arrival = int64(a)
	return true
}

func (s *scaler) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.Reader.Err()
}
