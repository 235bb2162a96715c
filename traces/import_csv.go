package traces

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// csvSource reads a CSV with a header row and finds columns by name.
type csvSource struct {
	cr     *csv.Reader
	name   string
	header []string
	rec    []string
	line   int
	// headerLine is the header's line: blank lines before it are skipped.
	headerLine int
	maxTok     int64
	ids        idArena
}

func newCSVSource(src io.Reader, opt *ImportOptions) (*csvSource, error) {
	cr := csv.NewReader(src)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	c := &csvSource{cr: cr, name: opt.name(), maxTok: opt.maxTokens()}
	h, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: empty input, want a header row", c.name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", c.name, err)
	}
	c.headerLine, _ = cr.FieldPos(0)
	c.header = make([]string, len(h))
	for i, s := range h {
		c.header[i] = strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
		// Columns are found by name, so a repeated one is ambiguous.
		if j := c.optCol(c.header[i]); c.header[i] != "" && j < i {
			return nil, fmt.Errorf("%s:%d: column %q appears twice (fields %d and %d)", c.name, c.headerLine, c.header[i], j+1, i+1)
		}
	}
	return c, nil
}

// col returns the index of the named column (case-insensitive), or an
// error listing the header.
func (c *csvSource) col(name string) (int, error) {
	if i := c.optCol(name); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("%s:%d: missing column %q (header is %q)", c.name, c.headerLine, name, strings.Join(c.header, ","))
}

// cols sets each dst to the index of the column of the same position in
// names; every one is required.
func (c *csvSource) cols(dst []*int, names ...string) error {
	for i, name := range names {
		j, err := c.col(name)
		if err != nil {
			return err
		}
		*dst[i] = j
	}
	return nil
}

// optCol returns the index of the named column or -1.
func (c *csvSource) optCol(name string) int {
	for i, h := range c.header {
		if strings.EqualFold(h, name) {
			return i
		}
	}
	return -1
}

// optColSpelled returns the index of the column named name or its other
// spelling alt, or -1; a header with both names the field twice, which is
// as ambiguous as a repeated column.
func (c *csvSource) optColSpelled(name, alt string) (int, error) {
	i, j := c.optCol(name), c.optCol(alt)
	switch {
	case j < 0:
		return i, nil
	case i < 0:
		return j, nil
	}
	return -1, fmt.Errorf("%s:%d: column %q appears twice, as %q and %q (fields %d and %d)",
		c.name, c.headerLine, name, c.header[min(i, j)], c.header[max(i, j)], min(i, j)+1, max(i, j)+1)
}

// headerName is " (name)" for the header's column i, "" past its end.
func (c *csvSource) headerName(i int) string {
	if i < len(c.header) {
		return " (" + c.header[i] + ")"
	}
	return ""
}

// read moves to the next record; io.EOF at the end.
func (c *csvSource) read() error {
	rec, err := c.cr.Read()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) { // the partial record holds the fields before the bad one
			return fmt.Errorf("%s:%d:%d%s: %v", c.name, pe.Line, pe.Column, c.headerName(len(rec)), pe.Err)
		}
		return fmt.Errorf("%s: %w", c.name, err)
	}
	c.rec = rec
	c.line, _ = c.cr.FieldPos(0)
	// A short row is most often a truncated file, a long one a shifted
	// column: both would import wrong values.
	switch n := len(c.header); {
	case len(rec) < n:
		return fmt.Errorf("%s:%d: column %s is missing: want %d fields as in the header, got %d", c.name, c.line, c.header[len(rec)], n, len(rec))
	case len(rec) > n:
		line, col := c.cr.FieldPos(n) // the first field past the header's
		return fmt.Errorf("%s:%d:%d: want %d fields as in the header, got %d", c.name, line, col, n, len(rec))
	}
	return nil
}

// fieldPos is ":col (name)" of field i of the current record.
func (c *csvSource) fieldPos(i int) string {
	_, col := c.cr.FieldPos(i)
	return fmt.Sprintf(":%d (%s)", col, c.header[i])
}

// cell returns field i of the current record, trimmed.
func (c *csvSource) cell(i int) string { return strings.TrimSpace(c.rec[i]) }

// bad reports field i of the current record as malformed.
func (c *csvSource) bad(i int, want string) error {
	line, col := c.cr.FieldPos(i)
	return fmt.Errorf("%s:%d:%d (%s): want %s, got %q", c.name, line, col, c.header[i], want, c.rec[i])
}

// tokens parses field i as a token count in [0, maxTok].
func (c *csvSource) tokens(i int) (int32, error) {
	n, ok := parseCount(c.cell(i))
	switch {
	case !ok:
		return 0, c.bad(i, "a token count (non-negative integer)")
	case n < 0:
		return 0, c.bad(i, "a non-negative token count")
	case n > c.maxTok:
		return 0, c.bad(i, fmt.Sprintf("a token count of at most %d (larger is absurd)", c.maxTok))
	}
	return int32(n), nil
}

// seconds parses field i as non-negative decimal seconds, returning ns.
func (c *csvSource) seconds(i int) (int64, error) {
	ns, ok := parseSeconds(c.cell(i))
	if !ok {
		return 0, c.bad(i, "non-negative seconds below 2^32")
	}
	return ns, nil
}

// dateTime parses field i as a datetime, returning unix ns.
func (c *csvSource) dateTime(i int) (int64, error) {
	ns, ok := parseDateTime(c.cell(i))
	if !ok {
		return 0, c.bad(i, "a timestamp like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.009930+00:00")
	}
	return ns, nil
}

// tokenCounts parses fields in and out as r's prompt and output token
// counts.
func (c *csvSource) tokenCounts(r *Request, in, out int) error {
	var err error
	if r.PromptTokens, err = c.tokens(in); err != nil {
		return err
	}
	r.OutputTokens, err = c.tokens(out)
	return err
}

// parseCount parses an integer, also accepting an integral float such as
// "374.0"; a negative value is returned as is for the caller to reject,
// and one past int64 as its bound, which every caller's bound is below.
func parseCount(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil || errors.Is(err, strconv.ErrRange) {
		return n, true
	}
	f, ok := parseDecimalFloat(s)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// parseDecimalFloat is strconv.ParseFloat of decimal text ("374.0",
// "1e3") only: ParseFloat also reads hexadecimal floats ("0x1p4") and
// "inf", which are corrupt cells in a trace, not numbers.
func parseDecimalFloat(s string) (float64, bool) {
	if strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// maxSeconds bounds timestamps in seconds so that ns fit an int64 with room
// to subtract.
const maxSeconds = 1 << 32

// parseSeconds parses non-negative decimal seconds ("12", "3.25", "1e3")
// into ns exactly for plain decimals (digits past the 9th are truncated).
func parseSeconds(s string) (int64, bool) { return parseDecimal(s, 1e9) }

// parseMillis parses non-negative decimal ms into ns as parseSeconds
// parses seconds: up to the same 2^32 s, digits past the 6th truncated.
func parseMillis(s string) (int64, bool) { return parseDecimal(s, 1e6) }

// parseDecimal parses a non-negative decimal count of a unit of unitNs ns
// (a power of ten) below maxSeconds s, into ns.
func parseDecimal(s string, unitNs int64) (int64, bool) {
	if s == "" {
		return 0, false
	}
	limit := maxSeconds * 1e9 / unitNs // in units
	var whole, frac int64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		whole = whole*10 + int64(s[i]-'0')
		if whole >= limit {
			return 0, false
		}
	}
	digits := i
	if i < len(s) && s[i] == '.' {
		i++
		scale := unitNs / 10
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			frac += int64(s[i]-'0') * scale
			scale /= 10
			digits++
		}
	}
	if i == len(s) && digits > 0 {
		return whole*unitNs + frac, true
	}
	f, ok := parseDecimalFloat(s)
	if !ok || !(f >= 0 && f < float64(limit)) {
		return 0, false
	}
	return int64(math.Round(f * float64(unitNs))), true
}

// parseDateTime parses "YYYY-MM-DD HH:MM:SS[.fraction][Z|±HH:MM]" (a 'T'
// may replace the space; no zone means UTC) into Unix ns. Years outside
// 1970..2200 are rejected.
func parseDateTime(s string) (int64, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	num := func(a, b int) int {
		n := 0
		for _, ch := range []byte(s[a:b]) {
			if ch < '0' || ch > '9' {
				return -1
			}
			n = n*10 + int(ch-'0')
		}
		return n
	}
	y, mo, d, h, mi, se := num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)
	if y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60 {
		return 0, false
	}
	rest := s[19:]
	var ns int64
	if len(rest) > 0 && rest[0] == '.' {
		i, scale := 1, int64(100_000_000)
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			ns += int64(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return 0, false
		}
		rest = rest[i:]
	}
	var off int64
	switch {
	case rest == "" || rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		zh, zm := num(len(s)-5, len(s)-3), num(len(s)-2, len(s))
		if zh < 0 || zh > 23 || zm < 0 || zm > 59 {
			return 0, false
		}
		off = int64(zh*3600+zm*60) * 1e9
		if rest[0] == '-' {
			off = -off
		}
	default:
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, int(ns), time.UTC)
	if t.Day() != d {
		return 0, false // e.g. February 30th
	}
	return t.UnixNano() - off, true
}

// timedTokenSource reads a CSV of one timestamp column and two token-count
// columns (prompt, output), the shape Azure's and Vidur's traces share;
// stamp parses the timestamp field into ns.
type timedTokenSource struct {
	*csvSource
	ts, in, out int
	stamp       func(c *csvSource, i int) (int64, error)
}

func newTimedTokenSource(src io.Reader, opt *ImportOptions, stamp func(*csvSource, int) (int64, error), tsCol, inCol, outCol string) (rowSource, error) {
	c, err := newCSVSource(src, opt)
	if err != nil {
		return nil, err
	}
	s := &timedTokenSource{csvSource: c, stamp: stamp}
	if err := c.cols([]*int{&s.ts, &s.in, &s.out}, tsCol, inCol, outCol); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *timedTokenSource) next(r *Request) (int64, int, error) {
	if err := s.read(); err != nil {
		return 0, 0, err
	}
	ts, err := s.stamp(s.csvSource, s.ts)
	if err != nil {
		return 0, 0, err
	}
	if err := s.tokenCounts(r, s.in, s.out); err != nil {
		return 0, 0, err
	}
	r.ID = s.ids.itoa(s.line)
	return ts, s.line, nil
}

func (s *timedTokenSource) stampPos() string { return s.fieldPos(s.ts) }

// newAzureSource reads Azure LLM inference traces:
// TIMESTAMP,ContextTokens,GeneratedTokens with datetime timestamps.
func newAzureSource(src io.Reader, opt *ImportOptions) (rowSource, error) {
	return newTimedTokenSource(src, opt, (*csvSource).dateTime, "TIMESTAMP", "ContextTokens", "GeneratedTokens")
}

// newVidurSource reads Vidur processed traces:
// arrived_at (seconds),num_prefill_tokens,num_decode_tokens.
func newVidurSource(src io.Reader, opt *ImportOptions) (rowSource, error) {
	return newTimedTokenSource(src, opt, (*csvSource).seconds, "arrived_at", "num_prefill_tokens", "num_decode_tokens")
}

// burstGPTSource reads BurstGPT: v1 "Timestamp,Model,Request tokens,
// Response tokens,Total tokens,Log Type" and v1.2/v2, which add "Session
// ID" (or "SessionID", not both) and "Elapsed time". Columns are found by name.
// Rows with 0 response tokens are failed requests, as BurstGPT documents
// them. Total tokens, where present, must be the sum of the two counts (it
// is on every row of the data, failed ones included). Elapsed time
// (submission to full response, not TTFT) is neither imported nor checked.
type burstGPTSource struct {
	*csvSource
	ts, model, in, out, total, logType, session int
	classes                                     map[[2]string]string
}

func newBurstGPTSource(src io.Reader, opt *ImportOptions) (rowSource, error) {
	c, err := newCSVSource(src, opt)
	if err != nil {
		return nil, err
	}
	s := &burstGPTSource{csvSource: c, classes: map[[2]string]string{}}
	if err := c.cols([]*int{&s.ts, &s.in, &s.out}, "Timestamp", "Request tokens", "Response tokens"); err != nil {
		return nil, err
	}
	s.model, s.total, s.logType = c.optCol("Model"), c.optCol("Total tokens"), c.optCol("Log Type")
	// BurstGPT's README spells the column without the space.
	if s.session, err = c.optColSpelled("Session ID", "SessionID"); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *burstGPTSource) next(r *Request) (int64, int, error) {
	if err := s.read(); err != nil {
		return 0, 0, err
	}
	ts, err := s.seconds(s.ts)
	if err != nil {
		return 0, 0, err
	}
	if err := s.tokenCounts(r, s.in, s.out); err != nil {
		return 0, 0, err
	}
	if err := s.checkTotal(r.PromptTokens, r.OutputTokens); err != nil {
		return 0, 0, err
	}
	r.SourceFailed = r.OutputTokens == 0
	var model, logType string
	if s.model >= 0 {
		model = strings.TrimSpace(s.rec[s.model])
	}
	if s.logType >= 0 {
		logType = strings.TrimSpace(s.rec[s.logType])
	}
	r.Class = s.class(model, logType)
	if s.session >= 0 {
		r.SessionID = strings.Clone(strings.TrimSpace(s.rec[s.session]))
	}
	r.ID = s.ids.itoa(s.line)
	return ts, s.line, nil
}

func (s *burstGPTSource) stampPos() string { return s.fieldPos(s.ts) }

// checkTotal refuses a row whose Total tokens is not Request tokens +
// Response tokens: one of the three is corrupt, and the importer cannot
// tell which.
func (s *burstGPTSource) checkTotal(in, out int32) error {
	if s.total < 0 {
		return nil
	}
	want := int64(in) + int64(out)
	if n, ok := parseCount(s.cell(s.total)); !ok || n != want {
		return s.bad(s.total, fmt.Sprintf("%d (%s %d + %s %d)", want, s.header[s.in], in, s.header[s.out], out))
	}
	return nil
}

// class names a row's model and log type, e.g. "ChatGPT/conversation",
// interned so that rows share strings.
func (s *burstGPTSource) class(model, logType string) string {
	k := [2]string{model, logType}
	if c, ok := s.classes[k]; ok {
		return c
	}
	lt := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(logType, " log"), " Log"))
	c := model
	if lt != "" {
		c += "/" + lt
	}
	if len(s.classes) < 1024 {
		s.classes[[2]string{strings.Clone(model), strings.Clone(logType)}] = c
	}
	return c
}
