package proxy

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// An encoded event stream is decoded as its bytes arrive, in a goroutine
// (gzip and brotli readers pull their input and cannot be fed), so that
// its events are timed as a plain stream's are. The client gets the
// encoded bytes unchanged.

// openDecoder returns a decoding reader over an encoded body.
type openDecoder func(io.Reader) (io.Reader, error)

// streamDecoder is how a stream in encoding enc is decoded as it arrives,
// or nil when the proxy does not decode it.
func streamDecoder(enc string) openDecoder {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "gzip", "x-gzip":
		return func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }
	case "br":
		return func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }
	}
	return nil
}

// timedChunk is a piece of an encoded body and when it arrived.
type timedChunk struct {
	b  []byte
	at int64
}

// chunkSource is the encoded body as the decoder reads it. at is when the
// last byte it gave arrived (-1 before any): what is decoded from that
// byte was not there to see before. It is an io.ByteReader so that gzip reads no further
// than it decodes (a buffered read ahead would wait on the next event).
type chunkSource struct {
	ch  <-chan timedChunk
	cur []byte
	at  int64
}

// fill waits for the next chunk when the current one is used up; false at
// the body's end.
func (s *chunkSource) fill() bool {
	for len(s.cur) == 0 {
		c, ok := <-s.ch
		if !ok {
			return false
		}
		s.cur, s.at = c.b, c.at
	}
	return true
}

func (s *chunkSource) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !s.fill() {
		return 0, io.EOF
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

func (s *chunkSource) ReadByte() (byte, error) {
	if !s.fill() {
		return 0, io.EOF
	}
	b := s.cur[0]
	s.cur = s.cur[1:]
	return b, nil
}

// decodingParser feeds an SSE parser with an encoded stream, decoded in
// its own goroutine; end joins it. Until then the goroutine alone touches
// the parser and the observation fields it sets.
type decodingParser struct {
	parser *sseParser
	ch     chan timedChunk
	done   chan struct{}
}

func newDecodingParser(p *sseParser, open openDecoder) *decodingParser {
	// A few chunks queued: the body is held up only while the decoder is
	// that far behind, and what waits is bounded.
	d := &decodingParser{parser: p, ch: make(chan timedChunk, 64), done: make(chan struct{})}
	go d.run(open)
	return d
}

// feed hands the decoder a copy of b (the caller reuses its buffer).
func (d *decodingParser) feed(b []byte, at int64) {
	d.ch <- timedChunk{b: bytes.Clone(b), at: at}
}

// end waits until the decoder has taken in everything fed.
func (d *decodingParser) end() {
	close(d.ch)
	<-d.done
}

func (d *decodingParser) run(open openDecoder) {
	defer close(d.done)
	src := &chunkSource{ch: d.ch, at: -1}
	if err := d.decode(src, open); err != nil && src.at >= 0 {
		// Bytes came that did not decode: what the stream held from
		// there on, [DONE] included, is unknown. A body with no bytes
		// is an empty stream, judged as a plain one.
		d.parser.obs.parseFailed, d.parser.obs.undecoded = true, true
	}
	for range d.ch { // a body that does not decode still passes through
	}
}

func (d *decodingParser) decode(src *chunkSource, open openDecoder) error {
	zr := &safeDecoder{open: open, src: src}
	buf := make([]byte, 32<<10)
	for {
		n, err := zr.Read(buf)
		if n > 0 {
			d.parser.feed(buf[:n], src.at)
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// safeDecoder reads what open decodes from src, opening it on the first
// read. A decoder library that panics on a corrupt body costs that body
// its parse (a read error, then every read), not the proxy every request
// in flight.
type safeDecoder struct {
	open openDecoder
	src  io.Reader
	zr   io.Reader
	err  error
}

func (d *safeDecoder) Read(p []byte) (n int, err error) {
	if d.err != nil {
		return 0, d.err
	}
	defer func() {
		if r := recover(); r != nil {
			n, d.err = 0, fmt.Errorf("decoding: %v", r)
			err = d.err
		}
	}()
	if d.zr == nil {
		if d.zr, d.err = d.open(d.src); d.err != nil {
			return 0, d.err
		}
	}
	return d.zr.Read(p)
}
