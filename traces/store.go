package traces

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/servesim/servesim/internal/atomicfile"
)

// Reader streams a trace one request at a time:
//
//	for r.Next() { req := r.At() ... }
//	if err := r.Err(); err != nil { ... }
//
// The *Request returned by At is reused by the next call to Next; call
// Clone to keep it.
type Reader interface {
	Meta() Meta
	Next() bool
	At() *Request
	Err() error
	Close() error
}

// Writer appends requests to a trace. Nothing is visible at the destination
// until Close succeeds; Abort discards everything written.
type Writer interface {
	Write(r *Request) error
	Close() error
	Abort()
}

// Format is a trace file format, chosen by file extension.
type Format string

const (
	Parquet   Format = "parquet" // .parquet: columnar, zstd
	ArrowFile Format = "arrow"   // .arrow, .feather: Arrow IPC file
	ArrowStrm Format = "arrows"  // .arrows: Arrow IPC stream; readable after a crash
	CSV       Format = "csv"     // .csv: servesim's columns; '#' lines hold metadata
	JSONL     Format = "jsonl"   // .jsonl: one object per line; the first holds metadata
)

// FormatOf maps a path's extension to its format.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".arrow", ".feather", ".ipc":
		return ArrowFile, nil
	case ".arrows":
		return ArrowStrm, nil
	case ".csv":
		return CSV, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	}
	return "", fmt.Errorf("%s: unknown trace extension %q (want .parquet or .pq, .arrow, .feather or .ipc, .arrows, .csv, .jsonl or .ndjson)", path, filepath.Ext(path))
}

// Open opens a trace file, picking the format by extension.
func Open(path string) (Reader, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	var r Reader
	switch f {
	case Parquet:
		r, err = openParquet(path)
	case ArrowFile, ArrowStrm:
		r, err = openIPC(path)
	case CSV:
		r, err = openCSV(path)
	case JSONL:
		r, err = openJSONL(path)
	}
	if err != nil {
		if pe := pathError(path, err); pe != nil {
			return nil, pe
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &namedReader{Reader: r, path: path}, nil
}

// pathError returns, when err is or wraps the *fs.PathError of opening or
// reading path itself, that error as "path: what went wrong", so that a
// message names the file once; else nil.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return nil
}

// SamePath reports whether a and b name the same file: os.SameFile when
// both exist (links, "./x" against "x"), else equal absolute paths. An
// output must not overwrite an input.
func SamePath(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}

// Create starts writing a trace at path, picking the format by extension.
// Rows go to a temporary file beside path that Close renames into place.
// It refuses metadata that Open would refuse (a block size outside
// [0, MaxBlockSize], text that is not valid UTF-8).
func Create(path string, meta Meta) (Writer, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if err := checkBlockSize(meta.BlockSize); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	keys, values := meta.toKV()
	for i, k := range keys {
		if err := checkText(k); err != nil {
			return nil, fmt.Errorf("%s: metadata key %q: %w", path, k, err)
		}
		if err := checkText(values[i]); err != nil {
			return nil, fmt.Errorf("%s: metadata %q: value: %w", path, k, err)
		}
	}
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	var enc encoder
	switch f {
	case Parquet:
		enc, err = newParquetEncoder(tmp, meta)
	case ArrowFile:
		enc, err = newIPCEncoder(tmp, meta, false)
	case ArrowStrm:
		enc, err = newIPCEncoder(tmp, meta, true)
	case CSV:
		enc, err = newCSVEncoder(tmp, meta)
	case JSONL:
		enc, err = newJSONLEncoder(tmp, meta)
	}
	if err != nil {
		tmp.Abort()
		return nil, atomicfile.Named(path, err) // a write error names path already
	}
	return &atomicWriter{enc: enc, tmp: tmp, path: path}, nil
}

// encoder is one format's writer; close flushes the format's trailer but
// does not close the file.
type encoder interface {
	write(r *Request) error
	close() error
}

// Flusher is implemented by writers that can make rows written so far
// durable without closing (the Arrow stream format).
type Flusher interface {
	Flush() error
}

type atomicWriter struct {
	enc  encoder
	tmp  *atomicfile.File
	path string
	done bool
	n    int
}

func (w *atomicWriter) Write(r *Request) error {
	if w.done {
		return fmt.Errorf("%s: write after close", w.path)
	}
	if err := r.validate(); err != nil {
		return fmt.Errorf("%s: row %d: %w", w.path, w.n+1, err)
	}
	w.n++
	return w.enc.write(r)
}

// Flush makes the rows written so far durable in the temporary file, when
// the format supports it.
func (w *atomicWriter) Flush() error {
	if f, ok := w.enc.(Flusher); ok {
		if err := f.Flush(); err != nil {
			return err
		}
		return w.tmp.Sync()
	}
	return nil
}

// TempPath is where rows go until Close; a crashed run leaves them there.
func (w *atomicWriter) TempPath() string { return w.tmp.Name() }

func (w *atomicWriter) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if err := w.enc.close(); err != nil {
		w.tmp.Abort()
		return atomicfile.Named(w.path, err) // a write error names path already
	}
	return w.tmp.Commit()
}

func (w *atomicWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.enc.close()
	w.tmp.Abort()
}

// namedReader prefixes errors with the file name.
type namedReader struct {
	Reader
	path string
}

func (r *namedReader) rowLine() int { return rowLine(r.Reader) }

// rowLiner is a Reader of a text file, which knows the line its current
// row starts on.
type rowLiner interface{ rowLine() int }

// rowLine returns the line r's current row starts on, or 0 when r does
// not read lines.
func rowLine(r Reader) int {
	if l, ok := r.(rowLiner); ok {
		return l.rowLine()
	}
	return 0
}

func (r *namedReader) Err() error {
	err := r.Reader.Err()
	switch {
	case err == nil:
		return nil
	case isPartial(r.path) && errors.Is(err, io.ErrUnexpectedEOF):
		// A killed recording's stream: the conversion keeps its whole rows.
		return fmt.Errorf("%s: %w (its writer was killed mid-flush, or is still flushing): %w: convert it to keep the rows held whole (servesim trace convert %s OUT.parquet)",
			r.path, ErrCutShort, err, r.path)
	}
	return fmt.Errorf("%s: %w", r.path, err)
}

// maxArrival bounds arrival_ns as the importers bound timestamps (2^32 s,
// 136 years), so that times derived from it cannot overflow an int64.
const maxArrival = maxSeconds * 1e9

// validate rejects rows no trace may hold.
func (r *Request) validate() error {
	switch {
	case r.Arrival < 0:
		return fmt.Errorf("arrival_ns %d is negative", r.Arrival)
	case r.Arrival > maxArrival:
		return fmt.Errorf("arrival_ns %d is above %d (2^32 s)", r.Arrival, int64(maxArrival))
	case r.PromptTokens < 0:
		return fmt.Errorf("prompt_tokens %d is negative", r.PromptTokens)
	case r.OutputTokens < 0:
		return fmt.Errorf("output_tokens %d is negative", r.OutputTokens)
	}
	// Arrow and Parquet strings are UTF-8, and JSON would write invalid
	// bytes as U+FFFD: a trace holds only text every format gives back.
	// The check runs on every row read, so valid rows take the short way.
	if utf8.ValidString(r.ID) && utf8.ValidString(r.SessionID) && utf8.ValidString(r.Class) &&
		utf8.ValidString(r.Error) && utf8.ValidString(r.FinishReason) && utf8.ValidString(r.OutputText) {
		return r.validateObserved()
	}
	for _, c := range []struct{ name, v string }{{ColID, r.ID}, {ColSessionID, r.SessionID}, {ColClass, r.Class},
		{ColError, r.Error}, {ColFinishReason, r.FinishReason}, {ColOutputText, r.OutputText}} {
		if err := checkText(c.v); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return r.validateObserved()
}

// checkText reports the first byte of s that is not valid UTF-8.
func checkText(s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	i := firstInvalid(s)
	return fmt.Errorf("invalid UTF-8 at byte %d (0x%02x): want UTF-8 text", i+1, s[i])
}

// firstInvalid is the offset of the first byte of s that does not start
// valid UTF-8 (len(s) when there is none).
func firstInvalid(s string) int {
	off := 0
	for off < len(s) {
		r, n := utf8.DecodeRuneInString(s[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	return off
}

// checkObserved refuses an observed number below zero read from a file.
// Missing (-1) is what an empty cell or a null reads as: a literal -1 on
// disk would otherwise pass for "not measured" where -2 fails.
func checkObserved(col string, v int64) error {
	if v >= 0 {
		return nil
	}
	return fmt.Errorf("%s %d is negative: want 0 or more, or an empty cell or null when not measured", col, v)
}

// validateRead is validate for a row read from a file, which also holds
// no failed_ns on a success (writers leave it out there).
func (r *Request) validateRead() error {
	if r.FailTime != Missing && r.Error == "" {
		return fmt.Errorf("%s %d on a row without %s: only a failed request has one", ColFailTime, r.FailTime, ColError)
	}
	return r.validate()
}

// validateObserved rejects observed times that would make a latency
// negative, token_times_ns out of order included. They are ns from the
// trace start, like arrival_ns, and latencies run from the scheduled send
// (else the arrival): a live run, the proxy and the simulator all stamp
// later events later.
func (r *Request) validateObserved() error {
	origin, name := r.Arrival, ColArrival
	if r.ScheduledSend != Missing {
		// Checked by itself: every later time is checked against it.
		if r.ScheduledSend < 0 {
			return fmt.Errorf("%s %d is negative: want ns from the trace start", ColScheduledSend, r.ScheduledSend)
		}
		origin, name = r.ScheduledSend, ColScheduledSend
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{ColActualSend, r.ActualSend}, {ColStart, r.StartTime}, {ColFirstToken, r.FirstToken}, {ColLastToken, r.LastToken}, {ColFailTime, r.failedAt()}} {
		if c.v != Missing && c.v < origin {
			return fmt.Errorf("%s %d is before %s %d", c.name, c.v, name, origin)
		}
	}
	for i, v := range r.TokenTimes {
		if v < origin {
			return fmt.Errorf("%s %d is before %s %d", ColTokenTimes, v, name, origin)
		}
		// In the order the tokens came, else an inter-token latency is negative.
		if i > 0 && v < r.TokenTimes[i-1] {
			return fmt.Errorf("%s %d (token %d) is before the previous token's %d", ColTokenTimes, v, i+1, r.TokenTimes[i-1])
		}
	}
	if r.FirstToken != Missing && r.LastToken != Missing && r.LastToken < r.FirstToken {
		return fmt.Errorf("%s %d is before %s %d", ColLastToken, r.LastToken, ColFirstToken, r.FirstToken)
	}
	return r.validateCounts()
}

// validateCounts rejects an observed count or status below zero other
// than Missing: readers refuse one, so a writer must not write it.
func (r *Request) validateCounts() error {
	if min(r.UsagePrompt, r.UsageOutput, r.UsageCached, r.Chunks, r.Preemptions, r.HTTPStatus) >= Missing {
		return nil // the common case, without building the list below per row
	}
	for _, c := range []struct {
		name string
		v    int32
	}{{ColUsagePrompt, r.UsagePrompt}, {ColUsageOutput, r.UsageOutput}, {ColUsageCached, r.UsageCached},
		{ColChunks, r.Chunks}, {ColPreemptions, r.Preemptions}, {ColHTTPStatus, r.HTTPStatus}} {
		if c.v != Missing {
			if err := checkObserved(c.name, int64(c.v)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Clone returns a deep copy of r that no reader will overwrite.
func (r *Request) Clone() *Request {
	c := *r
	c.ID, c.SessionID, c.Class = strings.Clone(r.ID), strings.Clone(r.SessionID), strings.Clone(r.Class)
	c.Error, c.FinishReason, c.OutputText = strings.Clone(r.Error), strings.Clone(r.FinishReason), strings.Clone(r.OutputText)
	if r.PrefixHashes != nil {
		c.PrefixHashes = append([]uint64{}, r.PrefixHashes...)
	}
	if r.TokenTimes != nil {
		c.TokenTimes = append([]int64{}, r.TokenTimes...)
	}
	return &c
}

// ReadAll reads a whole trace into memory. Use it for small traces only;
// everything else should stream.
func ReadAll(path string) (Meta, []*Request, error) {
	r, err := Open(path)
	if err != nil {
		return Meta{}, nil, err
	}
	defer r.Close()
	var out []*Request
	for r.Next() {
		out = append(out, r.At().Clone())
	}
	return r.Meta(), out, r.Err()
}

// WriteAll writes reqs to path atomically.
func WriteAll(path string, meta Meta, reqs []*Request) error {
	w, err := Create(path, meta)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		if err := w.Write(r); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}
