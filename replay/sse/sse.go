// Package sse splits a text/event-stream body into its events as the bytes
// arrive, with the framing of the WHATWG HTML standard ("Server-sent
// events", interpreting an event stream):
//   - a line ends in CRLF, LF or a lone CR, and one may be split across reads;
//   - a blank line ends an event, which is delivered if it had data;
//   - the values of its "data" lines are joined with LF, "event" names its
//     type, and comments (":"), "id", "retry" and unknown fields are skipped;
//   - one space after a field's colon is dropped, as is a byte-order mark
//     at the start of the stream.
//
// Two departures: End delivers an event the stream left open, so a server
// that closes the connection right after its last data line loses nothing;
// and an "error" line is read as "event: error" plus a data line of its
// value, since llama.cpp's server sends a streaming error so (a field the
// standard skips, which would lose the error).
package sse

import "bytes"

// Emit receives one event: its type ("" when it named none) and its data.
// Both slices are valid only during the call. Returning false stops Feed.
type Emit func(event, data []byte) bool

// Splitter holds what a stream has left unfinished between reads. The
// zero value is ready to use.
type Splitter struct {
	// MaxLine caps a line's length in bytes (0: no cap). A longer line is
	// dropped, so that a stream without line ends cannot grow memory
	// without bound, and counted in Dropped.
	MaxLine int
	// Dropped counts the lines dropped for their length.
	Dropped int

	line    []byte // the start of a line that an earlier read split
	skip    bool   // the current line is over MaxLine
	cr      bool   // the last byte fed was a CR: a LF first in the next read is its pair
	started bool   // the first line has been read (where a byte-order mark can be)
	event   []byte
	data    []byte
	hasData bool
}

// IsDone reports whether an event's data is OpenAI's end of stream,
// [DONE]. White space around it is ignored: by the standard trailing
// spaces belong to the value, but OpenAI-compatible clients (go-openai,
// the openai Python SDK) accept a padded [DONE], so servers that pad it
// work with them, and the client and the proxy must agree on one rule.
func IsDone(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "[DONE]"
}

// EngineAborted reports whether finish, a choice's finish_reason, says the
// engine rather than the model or max_tokens ended the request: vLLM ends
// an aborted request ("abort": shutdown, a pause, an abort request) or a
// failed one ("error") with usage and [DONE] as a finished one ends, so
// without this its cut-short times would count as a success's. The client
// and the proxy must agree on which requests failed.
func EngineAborted(finish string) bool {
	return finish == "abort" || finish == "error"
}

// LaterFinish is the finish_reason to keep when next follows cur (a later
// choice's or chunk's): next, unless it is empty or cur says the engine
// ended the request early. One choice cut short cut the request short, and
// another's later stop must not hide it.
func LaterFinish[T string | []byte](cur, next T) T {
	if len(next) == 0 || EngineAborted(string(cur)) {
		return cur
	}
	return next
}

// DefaultMaxLine is the cap the client and the proxy set: far above any
// chunk an engine sends.
const DefaultMaxLine = 8 << 20

var bom = []byte("\xEF\xBB\xBF")

// Reset empties s for a new stream, keeping its buffers and MaxLine.
func (s *Splitter) Reset() {
	*s = Splitter{MaxLine: s.MaxLine, line: s.line[:0], event: s.event[:0], data: s.data[:0]}
}

// Feed splits b, the next bytes of the stream, calling emit with each
// event it completes. It returns false, leaving the rest of b unread, as
// soon as emit does.
func (s *Splitter) Feed(b []byte, emit Emit) bool {
	if s.cr && len(b) > 0 {
		s.cr = false
		if b[0] == '\n' {
			b = b[1:]
		}
	}
	for len(b) > 0 {
		end := bytes.IndexByte(b, '\n')
		seg := b
		if end >= 0 {
			seg = b[:end]
		}
		// Two searches for one byte each: both are vectorised, where a
		// search for either byte is not. Servers end lines in LF or CRLF.
		cr := bytes.IndexByte(seg, '\r')
		if cr < 0 && end < 0 {
			s.appendLine(b)
			return true
		}
		next := end + 1
		if cr >= 0 {
			end, next = cr, cr+1
			if next == len(b) {
				s.cr = true
			} else if b[next] == '\n' {
				next++
			}
		}
		if !s.takeLine(b[:end], emit) {
			return false
		}
		b = b[next:]
	}
	return true
}

// End finishes the stream: it takes an unterminated last line and
// delivers the event left open, if it had data.
func (s *Splitter) End(emit Emit) bool {
	if len(s.line) > 0 || s.skip {
		if !s.takeLine(nil, emit) {
			return false
		}
	}
	return s.dispatch(emit)
}

// appendLine keeps the start of a line that continues in the next read.
func (s *Splitter) appendLine(b []byte) {
	if s.skip {
		return
	}
	if s.MaxLine > 0 && len(s.line)+len(b) > s.MaxLine {
		s.skip, s.line = true, s.line[:0]
		s.Dropped++
		return
	}
	s.line = append(s.line, b...)
}

// takeLine handles one whole line: tail, joined to what earlier reads left.
func (s *Splitter) takeLine(tail []byte, emit Emit) bool {
	line, skip := tail, false
	if len(s.line) > 0 || s.skip {
		s.appendLine(tail)
		line, skip = s.line, s.skip
	} else if s.MaxLine > 0 && len(line) > s.MaxLine {
		s.Dropped++
		skip = true
	}
	s.line, s.skip = s.line[:0], false
	if !s.started {
		s.started = true
		line = bytes.TrimPrefix(line, bom)
	}
	switch {
	case skip:
		return true
	case len(line) == 0:
		return s.dispatch(emit)
	case line[0] == ':': // a comment, as servers send for keep-alive
		return true
	}
	field, value, found := bytes.Cut(line, []byte{':'})
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(field) {
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data, s.hasData = append(s.data, value...), true
	case "event":
		s.event = append(s.event[:0], value...)
	case "error": // llama.cpp's streaming error
		s.event = append(s.event[:0], "error"...)
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data, s.hasData = append(s.data, value...), true
	}
	return true
}

// dispatch delivers the event collected so far, if it had data, and
// starts the next one.
func (s *Splitter) dispatch(emit Emit) bool {
	has := s.hasData
	event, data := s.event, s.data
	s.event, s.data, s.hasData = s.event[:0], s.data[:0], false
	if !has {
		return true
	}
	return emit(event, data)
}
