package main

import (
	"regexp"
	"strconv"
)

var (
	ubatch = regexp.MustCompile(`SSKV t=(\d+) n=(\d+) used=\d+ head=\d+ ntok=(\d+)`)
	// segment matches one sequence's run of tokens in an SSKV line: seq:from-to.
	segment = regexp.MustCompile(`(\d+):(\d+)-(\d+)`)
)

// ubatchLine is one "SSKV" line of a traced engine: one ubatch.
type ubatchLine struct {
	t       int64 // µs since the epoch, when the ubatch was placed
	cells   int   // cells it attends over (n_kv)
	tokens  int
	prefill int // tokens of prompt segments (more than one position)
	decode  int // one-position segments
	// prefillAttn and decodeContext are the step model's PrefillAttn and
	// DecodeContext: each prompt segment's tokens × the context after it,
	// and each decoding sequence's context with its new token.
	prefillAttn, decodeContext float64
}

// cut reports a line whose segments miss tokens: other output cut it.
func (u ubatchLine) cut() bool { return u.prefill+u.decode != u.tokens }

// pureDecode reports a ubatch in which every sequence computes one token.
func (u ubatchLine) pureDecode() bool { return u.prefill == 0 && u.decode == u.tokens }

// readUbatches returns the SSKV lines of an engine log in order.
func readUbatches(path string) ([]ubatchLine, error) {
	var ubs []ubatchLine
	err := lines(path, func(l string) error {
		m := ubatch.FindStringSubmatch(l)
		if m == nil {
			return nil
		}
		var u ubatchLine
		u.t, _ = strconv.ParseInt(m[1], 10, 64)
		u.cells, _ = strconv.Atoi(m[2])
		u.tokens, _ = strconv.Atoi(m[3])
		for _, s := range segment.FindAllStringSubmatch(l, -1) {
			from, _ := strconv.Atoi(s[2])
			to, _ := strconv.Atoi(s[3])
			if to > from {
				u.prefill += to - from + 1
				u.prefillAttn += float64(to-from+1) * float64(to+1)
			} else {
				u.decode++
				u.decodeContext += float64(to + 1)
			}
		}
		ubs = append(ubs, u)
		return nil
	})
	return ubs, err
}
