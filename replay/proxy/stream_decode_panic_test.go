package proxy

import (
	"io"
	"testing"
)

// A decoder that panics on a body it cannot handle costs that request its
// parse, not the proxy its life: the body still drains and the row is
// marked unparsed.
func TestDecoderPanicMarksTheStreamUnparsed(t *testing.T) {
	var obs observation
	d := newDecodingParser(newSSEParser(&obs), func(r io.Reader) (io.Reader, error) {
		if _, err := r.Read(make([]byte, 1)); err != nil {
			return nil, err
		}
		panic("corrupt window")
	})
	d.feed([]byte("\x1f\x8b junk"), 5)
	d.feed([]byte("more"), 6)
	d.end()
	if !obs.parseFailed || !obs.undecoded {
		t.Errorf("parseFailed %v, undecoded %v: want a panicking decoder's stream marked unparsed", obs.parseFailed, obs.undecoded)
	}
}

// A whole body whose decoder panics is an error, as one that does not
// decode is: the response is counted unparsed, and the proxy goes on.
func TestDecoderPanicIsABodyError(t *testing.T) {
	panicking := func(io.Reader) (io.Reader, error) { panic("corrupt window") }
	if got, err := readDecoded([]byte("\x1f\x8b junk"), panicking, maxBody); err == nil {
		t.Errorf("decoded to %q: want an error", got)
	}
}
