package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// mooncakeSource reads Mooncake FAST'25 JSONL:
// {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}.
// Each hash id names one 512-token block, so a row carries
// ceil(input_length/512) of them; they become PrefixHashes.
// Timestamps below 2^32 s (in ms, Unix ms included) are accepted, as the
// other formats accept them. Unknown fields are ignored, as other Mooncake
// traces add some.
type mooncakeSource struct {
	sc     *bufio.Scanner
	name   string
	line   int
	lead   int // bytes of space before the line's JSON, which columns count
	maxTok int64
	row    mooncakeRow
}

type mooncakeRow struct {
	Timestamp    json.RawMessage `json:"timestamp"` // a number; json.Number would take "123" too
	InputLength  int64           `json:"input_length"`
	OutputLength int64           `json:"output_length"`
	HashIDs      *[]uint64       `json:"hash_ids"`
}

const absent = math.MinInt64

func newMooncakeSource(src io.Reader, opt *ImportOptions) (rowSource, error) {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	return &mooncakeSource{sc: sc, name: opt.name(), maxTok: opt.maxTokens()}, nil
}

func (s *mooncakeSource) next(r *Request) (int64, int, error) {
	for s.sc.Scan() {
		s.line++
		b := bytes.TrimLeftFunc(s.sc.Bytes(), unicode.IsSpace)
		s.lead = len(s.sc.Bytes()) - len(b)
		if b = bytes.TrimSpace(b); len(b) == 0 {
			continue
		}
		hashes := r.PrefixHashes[:0]
		s.row = mooncakeRow{InputLength: absent, OutputLength: absent, HashIDs: &hashes}
		if err := json.Unmarshal(b, &s.row); err != nil {
			return 0, 0, s.jsonErr(b, err)
		}
		if _, elem := nullListElement(b, "hash_ids"); elem > 0 {
			return 0, 0, s.valueErr(b, "hash_ids", "want unsigned integers, got null (element %d)", elem)
		}
		if len(s.row.Timestamp) == 0 || string(s.row.Timestamp) == "null" {
			return 0, 0, s.valueErr(b, "timestamp", "want a timestamp in ms, got none")
		}
		if s.row.Timestamp[0] == '"' {
			return 0, 0, s.valueErr(b, "timestamp", "want a JSON number of ms, got the string %s", s.row.Timestamp)
		}
		ns, ok := parseMillis(string(s.row.Timestamp))
		if !ok {
			return 0, 0, s.valueErr(b, "timestamp", "want non-negative ms below 2^32 s, got %s", s.row.Timestamp)
		}
		var err error
		if r.PromptTokens, err = s.tokens(b, "input_length", s.row.InputLength); err != nil {
			return 0, 0, err
		}
		if r.OutputTokens, err = s.tokens(b, "output_length", s.row.OutputLength); err != nil {
			return 0, 0, err
		}
		switch {
		case s.row.HashIDs == nil: // "hash_ids": null
			r.PrefixHashes = nil
		case len(*s.row.HashIDs) == 0 && !bytes.Contains(b, []byte(`"hash_ids"`)):
			r.PrefixHashes = nil // absent
		default:
			r.PrefixHashes = nonNil(*s.row.HashIDs)[:len(*s.row.HashIDs)]
			// A count off the prompt's blocks means the row is corrupt: the
			// simulator would drop the extra ids, or cache too few blocks.
			want := (int64(r.PromptTokens) + MooncakeBlockSize - 1) / MooncakeBlockSize
			if int64(len(r.PrefixHashes)) != want {
				return 0, 0, s.valueErr(b, "hash_ids", "want %d ids (one per %d-token block of input_length %d), got %d",
					want, MooncakeBlockSize, r.PromptTokens, len(r.PrefixHashes))
			}
		}
		r.ID = strconv.Itoa(s.line)
		return ns, s.line, nil
	}
	if err := s.sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("%s:%d: %w", s.name, s.line+1, scanErr(err))
	}
	return 0, 0, io.EOF
}

func (s *mooncakeSource) stampPos() string {
	b := bytes.TrimSpace(s.sc.Bytes())
	if i := valueOffset(b, "timestamp"); i >= 0 {
		return fmt.Sprintf(":%d (timestamp)", s.lead+i+1)
	}
	return ""
}

func (s *mooncakeSource) tokens(b []byte, field string, v int64) (int32, error) {
	switch {
	case v == absent:
		return 0, s.valueErr(b, field, "want a token count, got none") // a null's column, if given
	case v < 0:
		return 0, s.valueErr(b, field, "want a non-negative token count, got %d", v)
	case v > s.maxTok:
		return 0, s.valueErr(b, field, "want a token count of at most %d (larger is absurd), got %d", s.maxTok, v)
	}
	return int32(v), nil
}

// valueErr reports field's value in b, the current line with s.lead bytes
// of space cut from its start, at the column of its first byte, as jsonErr
// reports a value of the wrong type; msg and args say what was wanted.
func (s *mooncakeSource) valueErr(b []byte, field, msg string, args ...any) error {
	where := fmt.Sprintf("%s:%d", s.name, s.line)
	if i := valueOffset(b, field); i >= 0 {
		where += fmt.Sprintf(":%d", s.lead+i+1)
	}
	return fmt.Errorf("%s (%s): %s", where, field, fmt.Sprintf(msg, args...))
}

// valueOffset is the index in b, a JSON object, of the first byte of the
// value of key, or -1 where b has none. Of keys repeated or spelled in
// another case it is the last one's, the one encoding/json decodes.
func valueOffset(b []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return -1
	}
	at := -1
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return at
		}
		i := int(dec.InputOffset()) // just past the key's closing quote
		for i < len(b) && strings.IndexByte(" \t\r\n:", b[i]) >= 0 {
			i++
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return at
		}
		if k, _ := t.(string); strings.EqualFold(k, key) {
			at = i
		}
	}
	return at
}

// jsonErr names the line and column of err, a decoding error of b (the
// line with s.lead bytes of space cut from its start): the column of the
// offending value's first byte, as the CSV importers name a field's.
func (s *mooncakeSource) jsonErr(b []byte, err error) error {
	return fmt.Errorf("%s:%d:%s", s.name, s.line, decodeErrAt(b, s.lead, err))
}

// decodeErrAt says where in line b, after lead bytes of space cut from it,
// err, an error decoding b as one JSON object, lies ("COL (field): ..." or
// "COL: ...") and what was wanted there; a line cut short goes wrong at
// its last byte.
func decodeErrAt(b []byte, lead int, err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return typeErrAt(b, lead, te)
	case errors.As(err, &se): // Offset counts the offending byte
		return fmt.Sprintf("%d: want a JSON object: %v", lead+int(se.Offset), se)
	case errors.Is(err, io.ErrUnexpectedEOF): // a json.Decoder's end of line
		return fmt.Sprintf("%d: want a JSON object: %v", lead+len(bytes.TrimRightFunc(b, unicode.IsSpace)), err)
	}
	return " " + err.Error()
}

// typeErrAt says where in line b, after lead bytes of space cut from it,
// te's value lies ("COL (field)") and what was wanted there. The line
// itself has no field: it was wanted as an object, not as the Go type
// encoding/json names.
func typeErrAt(b []byte, lead int, te *json.UnmarshalTypeError) string {
	col := lead + valueStart(b, int(te.Offset)) + 1
	if te.Field == "" {
		return fmt.Sprintf("%d: want a JSON object, got JSON %s", col, te.Value)
	}
	return fmt.Sprintf("%d (%s): want %s, got JSON %s", col, te.Field, te.Type, te.Value)
}

// kindErr words a JSON type error as the field and the JSON kind it
// wants, not the Go type it decodes into (a ShareGPT turn's is an
// anonymous struct); any other error is returned as it is.
func kindErr(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := "a JSON object"
	switch te.Type.Kind() {
	case reflect.Slice, reflect.Array:
		want = "a JSON array"
	case reflect.String:
		want = "a JSON string"
	}
	if te.Field == "" {
		return fmt.Errorf("want %s, got JSON %s", want, te.Value)
	}
	return fmt.Errorf("%s: want %s, got JSON %s", te.Field, want, te.Value)
}

// valueStart is the index in b of the first byte of the value a type
// error's Offset, end, is about: encoding/json puts it just past an
// object's or array's opening byte but past the whole of a string,
// number or literal.
func valueStart(b []byte, end int) int {
	if end <= 0 || end > len(b) {
		return max(0, min(end, len(b)))
	}
	switch last := end - 1; b[last] {
	case '{', '[':
		return last
	case '"': // back to the opening quote, one no odd run of backslashes escapes
		for i := last - 1; i >= 0; i-- {
			if b[i] != '"' {
				continue
			}
			k := i
			for k > 0 && b[k-1] == '\\' {
				k--
			}
			if (i-k)%2 == 0 {
				return i
			}
		}
		return 0
	default: // a number, true, false or null
		i := last
		for i > 0 && strings.IndexByte(" \t\r\n:,[", b[i-1]) < 0 {
			i--
		}
		return i
	}
}

// shareGPTSource reads a ShareGPT JSON array, one conversation at a time:
// [{"id": ..., "conversations": [{"from": "human", "value": ...}, ...]}].
// The first human (or user) turn is the prompt, the first gpt (or
// assistant/chatgpt) turn the output; conversations lacking either are
// skipped, and an array where every one lacks them is refused. Lengths are ceil(UTF-8 bytes / ShareGPTBytesPerToken). There
// are no timestamps: arrivals come from a Poisson process at opt.Rate.
type shareGPTSource struct {
	dec     *json.Decoder
	name    string
	maxTok  int64
	rate    float64
	rng     *rand.Rand
	started bool
	conv    int
	kept    int // conversations imported
	t       int64
	conver  shareGPTConv
}

type shareGPTConv struct {
	ID            json.RawMessage `json:"id"`
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

func newShareGPTSource(src io.Reader, opt *ImportOptions) (rowSource, error) {
	if !(opt.Rate > 0) || math.IsInf(opt.Rate, 0) {
		return nil, fmt.Errorf("%s: sharegpt has no timestamps: set a positive arrival rate (got %v)", opt.name(), opt.Rate)
	}
	return &shareGPTSource{
		dec:    json.NewDecoder(src),
		name:   opt.name(),
		maxTok: opt.maxTokens(),
		rate:   opt.Rate,
		rng:    rand.New(rand.NewPCG(opt.Seed, streamSeed("sharegpt.arrivals"))),
		t:      -1,
	}, nil
}

func (s *shareGPTSource) next(r *Request) (int64, int, error) {
	if !s.started {
		s.started = true
		tok, err := s.dec.Token()
		if err != nil {
			return 0, 0, fmt.Errorf("%s: want a JSON array of conversations: %v", s.name, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return 0, 0, fmt.Errorf("%s: want a JSON array of conversations, got %v", s.name, tok)
		}
	}
	for {
		if !s.dec.More() {
			if _, err := s.dec.Token(); err != nil {
				return 0, 0, s.offsetErr(fmt.Sprintf(": unterminated array: %v", err))
			}
			if _, err := s.dec.Token(); err != io.EOF {
				return 0, 0, s.offsetErr(": want the end of input after the array")
			}
			// Skipping every conversation means another schema (e.g.
			// "messages" with role/content), not an empty trace.
			if s.conv > 0 && s.kept == 0 {
				return 0, 0, fmt.Errorf("%s: none of the %d conversations has a human (or user) turn followed by a gpt (or assistant) turn, as {\"conversations\": [{\"from\", \"value\"}]}: is it ShareGPT?", s.name, s.conv)
			}
			return 0, 0, io.EOF
		}
		s.conv++
		// encoding/json decodes into the reused elements without zeroing
		// them: a turn lacking "from" or "value" would keep the old one's.
		turns := s.conver.Conversations[:cap(s.conver.Conversations)]
		clear(turns)
		s.conver = shareGPTConv{Conversations: turns[:0]}
		if err := s.dec.Decode(&s.conver); err != nil {
			return 0, 0, s.decodeErr(err, fmt.Sprintf(" (conversation %d): want {\"id\", \"conversations\": [{\"from\", \"value\"}]}: %v", s.conv, kindErr(err)))
		}
		in, out := -1, -1
		for i, m := range s.conver.Conversations {
			switch m.From {
			case "human", "user":
				if in < 0 {
					in = i
				}
			case "gpt", "assistant", "chatgpt":
				if out < 0 && in >= 0 {
					out = i
				}
			}
		}
		if in < 0 || out < 0 {
			continue
		}
		var err error
		if r.PromptTokens, err = s.tokens("prompt", len(s.conver.Conversations[in].Value)); err != nil {
			return 0, 0, err
		}
		if r.OutputTokens, err = s.tokens("output", len(s.conver.Conversations[out].Value)); err != nil {
			return 0, 0, err
		}
		r.ID = shareGPTID(s.conver.ID, s.conv)
		s.kept++
		if s.t < 0 {
			s.t = 0
		} else {
			gap := s.rng.ExpFloat64() / s.rate * 1e9
			if gap > float64(maxSeconds)*1e9 || s.t+int64(gap) > maxSeconds*1e9 {
				return 0, 0, fmt.Errorf("%s: conversation %d: arrival past 2^32 s: rate %v too low", s.name, s.conv, s.rate)
			}
			s.t += int64(gap)
		}
		return s.t, s.conv, nil
	}
}

// offsetErr is an error at the decoder's offset; msg follows it.
func (s *shareGPTSource) offsetErr(msg string) error {
	return &offsetError{name: s.name, off: s.dec.InputOffset(), msg: msg}
}

// decodeErr is an error, err, decoding a conversation; msg follows its
// offset. A syntax error is at its offending byte: the decoder stays at
// the conversation's start, and its SyntaxError.Offset counts only the
// bytes it scanned as values, so the conversation's buffered bytes are
// scanned again to find the byte.
func (s *shareGPTSource) decodeErr(err error, msg string) error {
	e := &offsetError{name: s.name, off: s.dec.InputOffset(), msg: msg}
	var se, again *json.SyntaxError
	if !errors.As(err, &se) {
		return e
	}
	// A missing comma is found before the value, at the decoder's offset:
	// only the same error found again is the value's.
	var v json.RawMessage
	if errors.As(json.NewDecoder(s.dec.Buffered()).Decode(&v), &again) && again.Error() == se.Error() {
		e.off += again.Offset - 1 // Offset counts the offending byte
	}
	return e
}

// offsetError is an error at a byte offset of a JSON input (after any
// BOM). Import, which holds the file, adds the offset's line and column:
// counting newlines on every read would slow the import for the error
// path's sake.
type offsetError struct {
	name      string
	off       int64
	msg       string // follows "offset N"
	line, col int64  // 0: not located
}

func (e *offsetError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d:%d: offset %d%s", e.name, e.line, e.col, e.off, e.msg)
	}
	return fmt.Sprintf("%s: offset %d%s", e.name, e.off, e.msg)
}

// locate sets e's line and column from f, the input e is about; a read
// error leaves them unset, the offset still naming the place.
func (e *offsetError) locate(f io.ReaderAt) {
	start := int64(0)
	if b := make([]byte, len(utf8BOM)); readFull(f, b) && string(b) == utf8BOM {
		start = int64(len(utf8BOM))
	}
	line, lineStart := int64(1), start
	buf := make([]byte, 64<<10)
	for pos := start; pos < start+e.off; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), start+e.off-pos)], pos)
		if k := bytes.Count(buf[:n], []byte{'\n'}); k > 0 {
			line, lineStart = line+int64(k), pos+int64(bytes.LastIndexByte(buf[:n], '\n'))+1
		}
		pos += int64(n)
		if err != nil && pos < start+e.off {
			return
		}
	}
	e.line, e.col = line, start+e.off-lineStart+1
}

// readFull says whether f's first len(b) bytes were read into b.
func readFull(f io.ReaderAt, b []byte) bool {
	n, _ := f.ReadAt(b, 0)
	return n == len(b)
}

func (s *shareGPTSource) tokens(what string, bytes int) (int32, error) {
	n := (int64(bytes) + ShareGPTBytesPerToken - 1) / ShareGPTBytesPerToken
	if n > s.maxTok {
		return 0, fmt.Errorf("%s: conversation %d: %s of %d tokens is absurd (more than %d)", s.name, s.conv, what, n, s.maxTok)
	}
	return int32(n), nil
}

// shareGPTID is the conversation's id (string or number), or its 1-based
// position when it has none.
func shareGPTID(raw json.RawMessage, pos int) string {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	if len(raw) > 0 && raw[0] != '"' && string(raw) != "null" && len(raw) <= 64 {
		return string(raw)
	}
	return strconv.Itoa(pos)
}
