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
