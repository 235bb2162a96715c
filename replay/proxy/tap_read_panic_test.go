package proxy

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// panicReader panics on its first read, as a broken reader in the
// response's path would.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("reading the response broke") }

// A panic while the tap reads the response leaves no one holding the
// body: ReverseProxy does not close it on a panic, so the tap does, or
// the upstream connection is never released. The panic goes on.
func TestTapReadPanicClosesUpstreamBody(t *testing.T) {
	body := &closeCount{Reader: panicReader{}}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	p := &Proxy{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	tp := newTap(p, &exchange{}, resp)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Read did not panic: the panic must reach the server, which ends the exchange")
			}
		}()
		_, _ = tp.Read(make([]byte, 16))
	}()
	if body.closed != 1 {
		t.Errorf("upstream body closed %d times after the panic, want 1", body.closed)
	}
	if err := tp.Close(); err != nil || body.closed != 1 {
		t.Errorf("Close after the panic: err %v, body closed %d times; want nil, once", err, body.closed)
	}
}

// A panic while Close parses what the tap read (here, a decoder's end
// already taken) closes the upstream body too, as one in Read does:
// ReverseProxy closes the body through the tap alone.
func TestTapClosePanicClosesUpstreamBody(t *testing.T) {
	body := &closeCount{Reader: strings.NewReader("")}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	p := &Proxy{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	tp := newTap(p, &exchange{}, resp)
	ended := make(chan timedChunk)
	close(ended)
	tp.dec = &decodingParser{ch: ended} // its end closes ch again, and panics
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Close did not panic: the panic must reach the server, which ends the exchange")
			}
		}()
		_ = tp.Close()
	}()
	if body.closed != 1 {
		t.Errorf("upstream body closed %d times after the panic in Close, want 1", body.closed)
	}
}
