package main

import (
	"errors"
	"fmt"
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
		// A number out of range is a line other output garbled: read as
		// its limit or wrapped, it would skew every step it is timed with.
		var u ubatchLine
		var err error
		if u.t, err = strconv.ParseInt(m[1], 10, 64); err != nil {
			return fmt.Errorf("SSKV t=%s: want µs since the epoch", m[1])
		}
		if u.cells, err = count("n", m[2]); err != nil {
			return err
		}
		if u.tokens, err = count("ntok", m[3]); err != nil {
			return err
		}
		for _, s := range segment.FindAllStringSubmatch(l, -1) {
			from, ferr := count("position", s[2])
			to, terr := count("position", s[3])
			if err := errors.Join(ferr, terr); err != nil {
				return fmt.Errorf("segment %s: %w", s[0], err)
			}
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

// count reads an SSKV count or position, an int32 in llama.cpp.
func count(name, v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("SSKV %s %s: want an int32", name, v)
	}
	return int(n), nil
}
