package replay

import (
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/servesim/servesim/replay/sse"
)

// chunkScan is what the fast path takes from one streamed chunk: as much
// of wireChunk as a content or usage chunk needs.
type chunkScan struct {
	choices int // len(choices)
	index   int // the last choice index other than 0, else 0 (absent is 0)
	// repeatedIndex: a choice gave its index twice (only go-json reads
	// such a choice), which no value of index tells.
	repeatedIndex bool
	text          int    // decoded bytes of content, reasoning and text, all choices
	finish        []byte // the last non-empty finish_reason, or an engine abort; aliases the input
	usage         openai.Usage
	hasUsage      bool
	cached        bool // usage reported prompt_tokens_details.cached_tokens (only go-json reads details)
	noPrompt      bool // usage had no prompt_tokens (only go-json reads such usage)
	noOutput      bool // usage had no completion_tokens (only go-json reads such usage)
	filtered      bool // Azure's content-filter preamble: no choices, by design
}

// scanChunk decodes the usual chunk without allocating: decoding every
// token's chunk into fresh structs and strings was most of the client's
// allocations and a tenth of its CPU. It accepts only strictly valid JSON
// in the shapes servers send, and gives up (false) on anything it does not
// fully handle: an error object, usage details, escaped keys, surrogate
// escapes, duplicate keys, unexpected types. The caller then decodes with
// go-json, so the two paths never disagree (FuzzScanChunk checks).
func scanChunk(b []byte, c *chunkScan) bool {
	*c = chunkScan{}
	s := scanner{b: b}
	var seen uint8
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			if !once(&seen, 1) {
				return false
			}
			if s.peek() == 'n' {
				return s.lit("null")
			}
			return s.array(func() bool { c.choices++; return s.choice(c) })
		case "usage":
			if !once(&seen, 2) {
				return false
			}
			if s.peek() == 'n' {
				return s.lit("null")
			}
			c.hasUsage = true
			return s.usage(&c.usage)
		case "error", "message":
			return s.lit("null") // anything else: the slow path reports it
		case "prompt_filter_results":
			return false // rare: the slow path reads it
		case "object":
			if s.peek() == 'n' {
				return s.lit("null")
			}
			v, _, esc, ok := s.str()
			return ok && !esc && string(v) != "error"
		}
		return s.skip(0)
	})
	s.ws()
	return ok && s.i == len(s.b)
}

// once sets bit in seen, false if it was set already (a duplicate key).
func once(seen *uint8, bit uint8) bool {
	dup := *seen&bit != 0
	*seen |= bit
	return !dup
}

// choice reads one element of choices into c.
func (s *scanner) choice(c *chunkScan) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "delta":
			if !once(&seen, 1) {
				return false
			}
			if s.peek() == 'n' {
				return s.lit("null")
			}
			var dseen uint8
			return s.object(func(key []byte) bool {
				switch string(key) {
				case "content":
					return once(&dseen, 1) && s.text(c)
				case "reasoning_content":
					return once(&dseen, 2) && s.text(c)
				case "reasoning":
					return once(&dseen, 4) && s.text(c)
				}
				return s.skip(0)
			})
		case "text":
			return once(&seen, 2) && s.text(c)
		case "index":
			if !once(&seen, 8) {
				return false
			}
			v, ok := s.num()
			if v != 0 {
				c.index = v
			}
			return ok && v >= 0 // not a plain integer: go-json tells
		case "finish_reason":
			if !once(&seen, 4) {
				return false
			}
			if s.peek() == 'n' {
				return s.lit("null")
			}
			v, _, esc, ok := s.str()
			c.finish = sse.LaterFinish(c.finish, v)
			return ok && !esc
		}
		return s.skip(0)
	})
}

// text adds a string field's decoded length (null adds nothing).
func (s *scanner) text(c *chunkScan) bool {
	if s.peek() == 'n' {
		return s.lit("null")
	}
	_, n, _, ok := s.str()
	c.text += n
	return ok
}

// usage reads a usage object; its counts must be plain integers. One
// without prompt_tokens or completion_tokens is left to go-json, which
// tells it from a 0.
func (s *scanner) usage(u *openai.Usage) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		var p *int
		var bit uint8
		switch string(key) {
		case "prompt_tokens":
			p, bit = &u.PromptTokens, 1
		case "completion_tokens":
			p, bit = &u.CompletionTokens, 2
		case "total_tokens":
			p, bit = &u.TotalTokens, 4
		case "prompt_tokens_details", "completion_tokens_details":
			return s.lit("null") // details: the slow path decodes them
		default:
			return s.skip(0)
		}
		if !once(&seen, bit) {
			return false
		}
		v, ok := s.num()
		*p = v
		return ok && v >= 0
	}) && seen&3 == 3
}

// scanner reads JSON from b at i. Its methods skip leading white space and
// return false on anything invalid or not handled.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// peek returns the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) lit(w string) bool {
	s.ws()
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

// object calls field at each value, with its key. Keys must be plain
// lower-case ASCII: go-json matches keys case-insensitively, and such keys
// fold only to themselves.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		k, _, esc, ok := s.str()
		if !ok || esc || !s.eat(':') {
			return false
		}
		for _, ch := range k {
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_') {
				return false
			}
		}
		if !field(k) {
			return false
		}
		if !s.eat(',') {
			return s.eat('}')
		}
	}
}

// array calls elem at each element.
func (s *scanner) array(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if !s.eat(',') {
			return s.eat(']')
		}
	}
}

// skip passes over any value, nested at most 32 deep.
func (s *scanner) skip(depth int) bool {
	if depth > 32 {
		return false
	}
	switch s.peek() {
	case '"':
		_, _, _, ok := s.str()
		return ok
	case '{':
		return s.object(func([]byte) bool { return s.skip(depth + 1) })
	case '[':
		return s.array(func() bool { return s.skip(depth + 1) })
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	_, ok := s.num()
	return ok
}

// str reads a string: its raw bytes between the quotes, its decoded
// length, and whether it had escapes. It gives up on surrogate escapes and
// invalid UTF-8, whose decoding (replacement characters) it leaves to
// go-json.
func (s *scanner) str() (raw []byte, n int, esc, ok bool) {
	if s.peek() != '"' {
		return nil, 0, false, false
	}
	s.i++
	start, ascii := s.i, true
	for s.i < len(s.b) {
		switch ch := s.b[s.i]; {
		case ch == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, n, esc, ascii || utf8.Valid(raw)
		case ch < 0x20:
			return nil, 0, false, false
		case ch == '\\':
			esc = true
			if s.i+1 >= len(s.b) {
				return nil, 0, false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
				n++
			case 'u':
				r := rune(0)
				if s.i+6 > len(s.b) {
					return nil, 0, false, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					switch {
					case h >= '0' && h <= '9':
						r = r<<4 | rune(h-'0')
					case h >= 'a' && h <= 'f':
						r = r<<4 | rune(h-'a'+10)
					case h >= 'A' && h <= 'F':
						r = r<<4 | rune(h-'A'+10)
					default:
						return nil, 0, false, false
					}
				}
				if r >= 0xd800 && r < 0xe000 {
					return nil, 0, false, false
				}
				s.i += 6
				n += utf8.RuneLen(r)
			default:
				return nil, 0, false, false
			}
		default:
			ascii = ascii && ch < utf8.RuneSelf
			s.i++
			n++
		}
	}
	return nil, 0, false, false
}

// num reads a number; v is its value if it is a plain integer below 1e9,
// else -1.
func (s *scanner) num() (v int, ok bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	d := s.i
	if !s.digits() || s.b[d] == '0' && s.i-d > 1 {
		return -1, false
	}
	plain := s.b[start] != '-' && s.i-d <= 9
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return -1, false
		}
		plain = false
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return -1, false
		}
		plain = false
	}
	if !plain {
		return -1, true
	}
	for _, ch := range s.b[d:s.i] {
		v = v*10 + int(ch-'0')
	}
	return v, true
}

// digits consumes one or more digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
