package traces

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// The text formats carry the same columns as the Arrow schema. Empty CSV
// cells and absent or null JSON fields mean "not measured". List columns are
// space-separated in CSV and arrays in JSONL. CSV metadata sits in leading
// "# key=value" lines, a value that holds a line break, or starts with a
// double quote, written as a Go-quoted string (a simulated trace's plan
// is several lines of TOML), and so is a key that holds '=', '#', a quote
// or a control character or has surrounding space, and a text cell that
// holds a carriage return or starts with a double quote; JSONL metadata in
// a first line {"meta": {...}}.

// csvEncoder writes servesim CSV.
type csvEncoder struct {
	bw  *bufio.Writer
	cw  *csv.Writer
	row []string
}

func newCSVEncoder(f io.Writer, meta Meta) (encoder, error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	keys, values := meta.toKV()
	for i, k := range keys {
		if csvQuoteKey(k) {
			k = strconv.Quote(k)
		}
		v := values[i]
		if strings.ContainsAny(v, "\r\n") || strings.HasPrefix(v, `"`) || strings.TrimSpace(v) != v {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(bw, "# %s=%s\n", k, v)
	}
	cw := csv.NewWriter(bw)
	if err := cw.Write(ColumnNames()); err != nil {
		return nil, err
	}
	return &csvEncoder{bw: bw, cw: cw, row: make([]string, len(fields))}, nil
}

// csvQuoteKey reports whether a metadata key must be written Go-quoted: a
// "# key=value" line would not give it back as written (it ends at the
// first '=', at the line break, and is read trimmed), or it holds what
// another tool may take for the start of a comment or a quoted string.
func csvQuoteKey(k string) bool {
	q := strconv.Quote(k)
	return strings.ContainsAny(k, "=#") || strings.TrimSpace(k) != k || q[1:len(q)-1] != k
}

func (e *csvEncoder) write(r *Request) error {
	for i, v := range textRow(r) {
		e.row[i] = csvCell(i, v)
	}
	return e.cw.Write(e.row)
}

// csvCell escapes a text cell that CSV would not give back as written:
// encoding/csv reads "\r\n" inside quotes as "\n". Such a cell, and any
// that starts with a quote, is written Go-quoted, as metadata values are;
// csvText reverses it.
func csvCell(field int, v string) string {
	if fields[field].Type == arrow.BinaryTypes.String && (strings.Contains(v, "\r") || strings.HasPrefix(v, `"`)) {
		return strconv.Quote(v)
	}
	return v
}

// csvText reads a text cell csvCell may have quoted.
func csvText(field int, v string) string {
	if fields[field].Type == arrow.BinaryTypes.String && strings.HasPrefix(v, `"`) {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
	}
	return v
}

func (e *csvEncoder) close() error {
	e.cw.Flush()
	return errors.Join(e.cw.Error(), e.bw.Flush())
}

// textRow renders r's columns as strings, "" for null, in schema order.
func textRow(r *Request) []string {
	return []string{
		r.ID, itoa64(r.Arrival), itoa32(r.PromptTokens), itoa32(r.OutputTokens),
		joinInts(r.PrefixHashes, strconv.FormatUint), r.SessionID, r.Class,
		strconv.FormatBool(r.Warmup), strconv.FormatBool(r.SourceFailed),
		itoa64(r.ScheduledSend), itoa64(r.ActualSend), itoa64(r.StartTime),
		itoa64(r.FirstToken), itoa64(r.LastToken), joinInts(r.TokenTimes, strconv.FormatInt),
		itoa32(r.UsagePrompt), itoa32(r.UsageOutput), itoa32(r.UsageCached),
		itoa32(r.Chunks), itoa32(r.Preemptions), itoa32(r.HTTPStatus),
		r.Error, r.FinishReason, r.OutputText, itoa64(r.failedAt()),
	}
}

func itoa64(v int64) string {
	if v == Missing {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

func itoa32(v int32) string { return itoa64(int64(v)) }

// joinInts writes v space-separated, as splitInts reads it: "" is no
// list (nil), "[]" an empty one.
func joinInts[T any](v []T, format func(T, int) string) string {
	if v == nil {
		return ""
	}
	if len(v) == 0 {
		return "[]"
	}
	var sb strings.Builder
	for i, x := range v {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(format(x, 10))
	}
	return sb.String()
}

// csvReader reads servesim CSV written by csvEncoder (or by hand).
type csvReader struct {
	f      *os.File
	cr     *csv.Reader
	meta   Meta
	cols   []int    // schema field index -> CSV column, -1 if absent
	header []string // every row must have as many fields
	base   int      // metadata lines before the header: csv.Reader counts from the header
	line   int      // the current row's first line
	cur    Request
	err    error
}

func openCSV(path string) (Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	skipBOM(br)
	// Metadata comment lines come first.
	var keys, values []string
	lineOf := map[string]int{}
	line := 0
	for {
		b, err := br.Peek(1)
		if err != nil || b[0] != '#' {
			break
		}
		s, _ := br.ReadString('\n')
		line++
		k, v, err := metaLine(s)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if strings.HasPrefix(v, `"`) {
			if v, err = strconv.Unquote(v); err != nil {
				f.Close()
				return nil, fmt.Errorf("line %d: metadata %s: a value starting with '\"' must be a Go-quoted string: %w", line, k, err)
			}
		}
		if first, dup := lineOf[k]; dup {
			f.Close()
			return nil, fmt.Errorf("line %d: metadata %s is given twice (first on line %d)", line, k, first)
		}
		// Each value is checked here, where its line is known.
		if _, err := metaFromKV([]string{k}, []string{v}); err != nil {
			f.Close()
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		lineOf[k] = line
		keys, values = append(keys, k), append(values, v)
	}
	meta, err := metaFromKV(keys, values)
	if err != nil {
		f.Close()
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		f.Close()
		var pe *csv.ParseError
		if errors.As(err, &pe) { // csv.Reader counts lines from the header
			return nil, fmt.Errorf("line %d, column %d: want a header row: %w", pe.Line+line, pe.Column, pe.Err)
		}
		return nil, fmt.Errorf("line %d: want a header row: %w", line+1, err)
	}
	cols, err := mapColumns(header)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	r := &csvReader{f: f, cr: cr, meta: meta, cols: cols, header: slices.Clone(header), base: line}
	r.cur.Reset()
	return r, nil
}

// metaLine splits a "# key=value" metadata line into its key and its
// value, which is still to be unquoted. A key starting with '"' is
// Go-quoted (csvQuoteKey). Space around '=' is not part of the key or the
// value: a value with surrounding space is written Go-quoted.
func metaLine(line string) (key, value string, err error) {
	s := strings.TrimSpace(strings.TrimPrefix(line, "#"))
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("metadata key starting with '\"' must be a Go-quoted string, got %s", s)
		}
		key, _ = strconv.Unquote(q)
		value, ok := strings.CutPrefix(strings.TrimSpace(s[len(q):]), "=")
		if !ok {
			return "", "", fmt.Errorf("metadata key %s: want '=' after it", q)
		}
		return key, strings.TrimSpace(value), nil
	}
	key, value, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("metadata comment must be '# key=value', got %q", strings.TrimSpace(line))
	}
	return strings.TrimSpace(key), strings.TrimSpace(value), nil
}

// mapColumns finds each schema field in a header; required columns must be
// present and unknown columns are errors, so typos do not pass silently.
func mapColumns(header []string) ([]int, error) {
	pos := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if j, dup := pos[h]; dup {
			return nil, fmt.Errorf("column %q appears twice (fields %d and %d)", h, j+1, i+1)
		}
		pos[h] = i
	}
	cols := make([]int, len(fields))
	for i, f := range fields {
		j, ok := pos[f.Name]
		if !ok {
			// Text files may leave out every column but the three a
			// simulation needs.
			if f.Name == ColArrival || f.Name == ColPromptTokens || f.Name == ColOutputTokens {
				return nil, fmt.Errorf("missing required column %q (have %s)", f.Name, strings.Join(header, ","))
			}
			j = -1
		}
		cols[i] = j
		delete(pos, f.Name)
	}
	for name := range pos {
		return nil, fmt.Errorf("unknown column %q (known: %s)", name, strings.Join(ColumnNames(), ","))
	}
	return cols, nil
}

func (r *csvReader) Meta() Meta   { return r.meta }
func (r *csvReader) At() *Request { return &r.cur }
func (r *csvReader) Err() error   { return r.err }
func (r *csvReader) Close() error { return r.f.Close() }
func (r *csvReader) rowLine() int { return r.line }

// headerName is " (name)" for the header's column i, "" past its end.
func (r *csvReader) headerName(i int) string {
	if i < len(r.header) {
		return " (" + strings.TrimSpace(r.header[i]) + ")"
	}
	return ""
}

func (r *csvReader) Next() bool {
	if r.err != nil {
		return false
	}
	rec, err := r.cr.Read()
	if err == io.EOF {
		return false
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			// The partial record holds the fields before the bad one.
			r.err = fmt.Errorf("line %d, column %d%s: %w", pe.Line+r.base, pe.Column, r.headerName(len(rec)), pe.Err)
			return false
		}
		r.err = err
		return false
	}
	line, _ := r.cr.FieldPos(0)
	line += r.base
	r.line = line
	// A short row is most often a truncated file: never read it as one
	// with empty cells.
	if len(rec) < len(r.header) {
		r.err = fmt.Errorf("line %d: want %d fields as in the header, got %d", line, len(r.header), len(rec))
		return false
	}
	if len(rec) > len(r.header) {
		fl, col := r.cr.FieldPos(len(r.header)) // the first field past the header's
		r.err = fmt.Errorf("line %d, column %d: want %d fields as in the header, got %d", fl+r.base, col, len(r.header), len(rec))
		return false
	}
	r.err = parseRow(&r.cur, func(field int) (string, string) {
		if j := r.cols[field]; j >= 0 {
			return csvText(field, rec[j]), fields[field].Name
		}
		return "", fields[field].Name
	})
	if r.err != nil {
		r.err = fmt.Errorf("line %d: %w", line, r.err)
		return false
	}
	if r.cols[0] < 0 { // no id column: name the row by its line
		r.cur.ID = strconv.Itoa(line)
	}
	return true
}

// parseRow fills r from text cells looked up by schema field index.
func parseRow(r *Request, cell func(field int) (value, name string)) error {
	r.Reset()
	var err error
	str := func(i int) string { v, _ := cell(i); return v }
	num := func(i int, dst *int64, bits int, required bool) {
		if err != nil {
			return
		}
		v, name := cell(i)
		if v == "" {
			if required {
				err = fmt.Errorf("column %s: want an integer, got an empty cell", name)
			}
			return
		}
		n, e := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		if errors.Is(e, strconv.ErrRange) { // an integer, so say which ones fit
			hi := int64(1)<<(bits-1) - 1
			err = fmt.Errorf("column %s: %q is out of range: want an integer in [%d, %d]", name, v, -hi-1, hi)
			return
		}
		if e != nil {
			err = fmt.Errorf("column %s: want an integer, got %q", name, v)
			return
		}
		if !required { // an observed number; validate checks the inputs
			if err = checkObserved(name, n); err != nil {
				return
			}
		}
		*dst = n
	}
	var v int64
	r.ID = str(0)
	num(1, &r.Arrival, 64, true)
	v = 0
	num(2, &v, 32, true)
	r.PromptTokens = int32(v)
	v = 0
	num(3, &v, 32, true)
	r.OutputTokens = int32(v)
	if err != nil {
		return err
	}
	if r.PrefixHashes, err = splitU64(str(4), fields[4].Name, r.PrefixHashes); err != nil {
		return err
	}
	r.SessionID, r.Class = str(5), str(6)
	if r.Warmup, err = parseBool(str(7), fields[7].Name); err != nil {
		return err
	}
	if r.SourceFailed, err = parseBool(str(8), fields[8].Name); err != nil {
		return err
	}
	for i, dst := range []*int64{&r.ScheduledSend, &r.ActualSend, &r.StartTime, &r.FirstToken, &r.LastToken} {
		num(9+i, dst, 64, false)
	}
	if err != nil {
		return err
	}
	if r.TokenTimes, err = splitI64(str(14), fields[14].Name, r.TokenTimes); err != nil {
		return err
	}
	for i, dst := range []*int32{&r.UsagePrompt, &r.UsageOutput, &r.UsageCached, &r.Chunks, &r.Preemptions, &r.HTTPStatus} {
		v = int64(Missing)
		num(15+i, &v, 32, false)
		*dst = int32(v)
	}
	r.Error, r.FinishReason, r.OutputText = str(21), str(22), str(23)
	num(24, &r.FailTime, 64, false)
	if err != nil {
		return err
	}
	return r.validateRead()
}

func parseBool(s, name string) (bool, error) {
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("column %s: want true or false, got %q", name, s)
	}
	return b, nil
}

func splitU64(s, name string, dst []uint64) ([]uint64, error) {
	return splitInts(s, name, dst, "unsigned integers", func(f string) (uint64, error) { return strconv.ParseUint(f, 10, 64) })
}

func splitI64(s, name string, dst []int64) ([]int64, error) {
	return splitInts(s, name, dst, "integers", func(f string) (int64, error) { return strconv.ParseInt(f, 10, 64) })
}

// splitInts parses a space-separated list into dst: "" is no list (nil),
// "[]" an empty one; want names the numbers in the error.
func splitInts[T any](s, name string, dst []T, want string, parse func(string) (T, error)) ([]T, error) {
	if s == "" {
		return nil, nil
	}
	dst = nonNil(dst)
	if s == "[]" {
		return dst, nil
	}
	for _, f := range strings.Fields(s) {
		n, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("column %s: want space-separated %s, got %q", name, want, f)
		}
		dst = append(dst, n)
	}
	return dst, nil
}

// jsonRow is the JSONL shape of a request; pointers are null when missing.
type jsonRow struct {
	ID            *string  `json:"id,omitempty"` // nil: no id, named by its line; "" is an id
	Arrival       *int64   `json:"arrival_ns"`
	PromptTokens  *int32   `json:"prompt_tokens"`
	OutputTokens  *int32   `json:"output_tokens"`
	PrefixHashes  []uint64 `json:"prefix_hashes"`
	SessionID     string   `json:"session_id,omitempty"`
	Class         string   `json:"class,omitempty"`
	Warmup        bool     `json:"warmup,omitempty"`
	SourceFailed  bool     `json:"source_failed,omitempty"`
	ScheduledSend *int64   `json:"scheduled_send_ns,omitempty"`
	ActualSend    *int64   `json:"actual_send_ns,omitempty"`
	StartTime     *int64   `json:"start_ns,omitempty"`
	FirstToken    *int64   `json:"first_token_ns,omitempty"`
	LastToken     *int64   `json:"last_token_ns,omitempty"`
	TokenTimes    []int64  `json:"token_times_ns"`
	UsagePrompt   *int32   `json:"usage_prompt_tokens,omitempty"`
	UsageOutput   *int32   `json:"usage_completion_tokens,omitempty"`
	UsageCached   *int32   `json:"usage_cached_tokens,omitempty"`
	Chunks        *int32   `json:"chunks,omitempty"`
	Preemptions   *int32   `json:"preemptions,omitempty"`
	HTTPStatus    *int32   `json:"http_status,omitempty"`
	Error         string   `json:"error,omitempty"`
	FinishReason  string   `json:"finish_reason,omitempty"`
	OutputText    string   `json:"output_text,omitempty"`
	FailTime      *int64   `json:"failed_ns,omitempty"`
}

// checkObserved refuses a present observed number below zero: v64 and v32
// would read a literal -1 as Missing.
func (row *jsonRow) checkObserved() error {
	for _, c := range []struct {
		name string
		p    *int64
	}{{ColScheduledSend, row.ScheduledSend}, {ColActualSend, row.ActualSend}, {ColStart, row.StartTime},
		{ColFirstToken, row.FirstToken}, {ColLastToken, row.LastToken}, {ColFailTime, row.FailTime}} {
		if c.p != nil {
			if err := checkObserved(c.name, *c.p); err != nil {
				return err
			}
		}
	}
	for _, c := range []struct {
		name string
		p    *int32
	}{{ColUsagePrompt, row.UsagePrompt}, {ColUsageOutput, row.UsageOutput}, {ColUsageCached, row.UsageCached},
		{ColChunks, row.Chunks}, {ColPreemptions, row.Preemptions}, {ColHTTPStatus, row.HTTPStatus}} {
		if c.p != nil {
			if err := checkObserved(c.name, int64(*c.p)); err != nil {
				return err
			}
		}
	}
	return nil
}

func p64(v int64) *int64 {
	if v == Missing {
		return nil
	}
	return &v
}

func p32(v int32) *int32 {
	if v == Missing {
		return nil
	}
	return &v
}

func v64(p *int64) int64 {
	if p == nil {
		return Missing
	}
	return *p
}

func v32(p *int32) int32 {
	if p == nil {
		return Missing
	}
	return *p
}

type jsonlEncoder struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

func newJSONLEncoder(f io.Writer, meta Meta) (encoder, error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	keys, values := meta.toKV()
	md := map[string]string{}
	for i, k := range keys {
		md[k] = values[i]
	}
	if err := enc.Encode(map[string]any{"meta": md}); err != nil {
		return nil, err
	}
	return &jsonlEncoder{bw: bw, enc: enc}, nil
}

func (e *jsonlEncoder) write(r *Request) error {
	return e.enc.Encode(jsonRow{
		ID: &r.ID, Arrival: &r.Arrival, PromptTokens: &r.PromptTokens, OutputTokens: &r.OutputTokens,
		PrefixHashes: r.PrefixHashes, SessionID: r.SessionID, Class: r.Class,
		Warmup: r.Warmup, SourceFailed: r.SourceFailed,
		ScheduledSend: p64(r.ScheduledSend), ActualSend: p64(r.ActualSend), StartTime: p64(r.StartTime),
		FirstToken: p64(r.FirstToken), LastToken: p64(r.LastToken), TokenTimes: r.TokenTimes,
		UsagePrompt: p32(r.UsagePrompt), UsageOutput: p32(r.UsageOutput), UsageCached: p32(r.UsageCached),
		Chunks: p32(r.Chunks), Preemptions: p32(r.Preemptions), HTTPStatus: p32(r.HTTPStatus),
		Error: r.Error, FinishReason: r.FinishReason, OutputText: r.OutputText, FailTime: p64(r.failedAt()),
	})
}

func (e *jsonlEncoder) close() error { return e.bw.Flush() }

type jsonlReader struct {
	f       *os.File
	sc      *bufio.Scanner
	meta    Meta
	line    int
	pending bool // the scanner holds line 1, a row not yet returned
	cur     Request
	err     error
}

func openJSONL(path string) (Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	skipBOM(br)
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 1<<20), maxLineBytes)
	r := &jsonlReader{f: f, sc: sc}
	r.cur.Reset()
	// Read the metadata line now, so Meta is right before the first Next.
	if sc.Scan() {
		r.line = 1
		if b := strings.TrimSpace(sc.Text()); strings.HasPrefix(b, `{"meta"`) {
			if err := r.parseMeta(sc.Bytes()); err != nil {
				f.Close()
				return nil, err
			}
		} else {
			r.pending = true
		}
	} else if err := sc.Err(); err != nil {
		// A directory, or a read error: refused here, as the other
		// formats' readers refuse it, not at the first row.
		f.Close()
		return nil, fmt.Errorf("line 1: %w", scanErr(err))
	}
	return r, nil
}

func (r *jsonlReader) parseMeta(b []byte) error {
	if err := checkUTF8(b); err != nil {
		return fmt.Errorf("line 1:%w", err)
	}
	var m struct{ Meta json.RawMessage }
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("line 1: metadata: %w", err)
	}
	keys, values, err := stringPairs(m.Meta)
	if err != nil {
		return fmt.Errorf("line 1: metadata: %w", err)
	}
	meta, err := metaFromKV(keys, values)
	if err != nil {
		return fmt.Errorf("line 1: %w", err)
	}
	r.meta = meta
	return nil
}

// stringPairs decodes a JSON object of strings (or null) in file order,
// so that a key given twice is seen rather than overwritten.
func stringPairs(raw json.RawMessage) (keys, values []string, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("want an object of strings")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string) // object keys are always strings
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", k, kindErr(err))
		}
		keys, values = append(keys, k), append(values, v)
	}
	return keys, values, nil
}

// columnKeys are the keys a JSONL row may hold: the column names, exactly.
var columnKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range ColumnNames() {
		m[c] = true
	}
	return m
}()

// checkKeys refuses a top-level key of the JSON object b that is not a
// column name, exactly as a CSV header must give it, or that is given
// twice: encoding/json matches a key ignoring case and keeps the last
// value, so either would be read silently. b not an object, or malformed,
// passes: decoding it reports that.
func checkKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		switch {
		case !columnKeys[k]:
			return fmt.Errorf("unknown column %q (known: %s)", k, strings.Join(ColumnNames(), ","))
		case seen[k]:
			return fmt.Errorf("column %q appears twice", k)
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return nil
}

func (r *jsonlReader) Meta() Meta   { return r.meta }
func (r *jsonlReader) At() *Request { return &r.cur }
func (r *jsonlReader) Err() error   { return r.err }
func (r *jsonlReader) Close() error { return r.f.Close() }
func (r *jsonlReader) rowLine() int { return r.line }

func (r *jsonlReader) Next() bool {
	for r.err == nil && (r.pending || r.sc.Scan()) {
		if r.pending {
			r.pending = false
		} else {
			r.line++
		}
		b := r.sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		if err := checkUTF8(b); err != nil {
			r.err = fmt.Errorf("line %d:%w", r.line, err)
			return false
		}
		// Before decoding: encoding/json would match a key in another
		// case, keep the last of two, and name an unknown one in its own
		// words.
		if err := checkKeys(b); err != nil {
			r.err = fmt.Errorf("line %d: %w", r.line, err)
			return false
		}
		var row jsonRow
		dec := json.NewDecoder(strings.NewReader(string(b)))
		if err := dec.Decode(&row); err != nil {
			r.err = fmt.Errorf("line %d:%s", r.line, decodeErrAt(b, 0, err))
			return false
		}
		// One object per line: anything after it would be dropped unread.
		if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r"); len(rest) != 0 {
			r.err = fmt.Errorf("line %d:%d: want one JSON object per line, got more after it", r.line, len(b)-len(rest)+1)
			return false
		}
		if col, elem := nullListElement(b, ColPrefixHashes, ColTokenTimes); col != "" {
			r.err = fmt.Errorf("line %d: column %s: element %d of the list is null", r.line, col, elem)
			return false
		}
		if row.Arrival == nil || row.PromptTokens == nil || row.OutputTokens == nil {
			r.err = fmt.Errorf("line %d: want arrival_ns, prompt_tokens and output_tokens", r.line)
			return false
		}
		if err := row.checkObserved(); err != nil {
			r.err = fmt.Errorf("line %d: %w", r.line, err)
			return false
		}
		c := &r.cur
		c.Reset()
		*c = Request{
			Arrival: *row.Arrival, PromptTokens: *row.PromptTokens, OutputTokens: *row.OutputTokens,
			PrefixHashes: row.PrefixHashes, SessionID: row.SessionID, Class: row.Class,
			Warmup: row.Warmup, SourceFailed: row.SourceFailed,
			ScheduledSend: v64(row.ScheduledSend), ActualSend: v64(row.ActualSend), StartTime: v64(row.StartTime),
			FirstToken: v64(row.FirstToken), LastToken: v64(row.LastToken), TokenTimes: row.TokenTimes,
			UsagePrompt: v32(row.UsagePrompt), UsageOutput: v32(row.UsageOutput), UsageCached: v32(row.UsageCached),
			Chunks: v32(row.Chunks), Preemptions: v32(row.Preemptions), HTTPStatus: v32(row.HTTPStatus),
			Error: row.Error, FinishReason: row.FinishReason, OutputText: row.OutputText, FailTime: v64(row.FailTime),
		}
		if row.ID != nil {
			c.ID = *row.ID
		} else {
			c.ID = strconv.Itoa(r.line)
		}
		if err := c.validateRead(); err != nil {
			r.err = fmt.Errorf("line %d: %w", r.line, err)
			return false
		}
		return true
	}
	if r.err == nil && r.sc.Err() != nil {
		r.err = fmt.Errorf("line %d: %w", r.line+1, scanErr(r.sc.Err()))
	}
	return false
}

// checkUTF8 reports invalid UTF-8 in a JSON line as "col (field): ...",
// the 1-based byte column and the top-level field it lies in, which the
// caller prefixes with "line N:". encoding/json would read it as U+FFFD.
func checkUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	off := firstInvalid(string(b))
	field := ""
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for dec.More() {
			t, err := dec.Token()
			var v json.RawMessage
			if err != nil || dec.Decode(&v) != nil {
				break
			}
			if dec.InputOffset() > int64(off) {
				field, _ = t.(string)
				field = " (" + field + ")"
				break
			}
		}
	}
	return fmt.Errorf("%d%s: want UTF-8 text, got byte 0x%02x", off+1, field, b[off])
}

// nullListElement returns the first of the array fields cols of the JSON
// object b (matched as encoding/json matches a field, ignoring case) that
// holds a null, and that element's 1-based position; "" if none does.
// encoding/json leaves a null element of a []uint64 or []int64 at 0.
func nullListElement(b []byte, cols ...string) (string, int) {
	if !bytes.Contains(b, []byte("null")) {
		return "", 0 // the usual line: no second decode
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return "", 0 // the caller's decode reports it
	}
	for _, col := range cols {
		for k, v := range obj {
			if !strings.EqualFold(k, col) {
				continue
			}
			var elems []json.RawMessage
			if json.Unmarshal(v, &elems) != nil {
				continue
			}
			for i, e := range elems {
				if string(e) == "null" {
					return col, i + 1
				}
			}
		}
	}
	return "", 0
}

// maxLineBytes bounds one line of a JSONL trace (servesim's or Mooncake's).
const maxLineBytes = 64 << 20

// scanErr says what a line too long for the scanner is.
func scanErr(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line longer than %d MiB", maxLineBytes>>20)
	}
	return err
}
