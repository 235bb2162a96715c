package proxy

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// closeCount is a response body that counts its closes.
type closeCount struct {
	io.Reader
	closed int
}

func (c *closeCount) Close() error { c.closed++; return nil }

type fixedRoundTripper struct{ resp *http.Response }

func (f fixedRoundTripper) RoundTrip(*http.Request) (*http.Response, error) { return f.resp, nil }

// A panic while the response is being tapped (here, in the log of an
// encoding not decoded) leaves no one holding the body: the transport
// closes it, or the upstream connection is never released.
func TestTapPanicClosesUpstreamBody(t *testing.T) {
	body := &closeCount{Reader: strings.NewReader("data: x\n\n")}
	resp := &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}, "Content-Encoding": {"zstd"}},
		Body:       body,
	}
	const warning = "proxy: a stream's Content-Encoding is not decoded: such rows have no FirstToken or TokenTimes and estimated token counts (Stats.Unparsed)"
	p := &Proxy{cfg: Config{Logger: slog.New(panicHandler{Handler: slog.NewTextHandler(io.Discard, nil), on: warning})}}
	tt := &tapTransport{p: p, rt: fixedRoundTripper{resp}}
	req, err := http.NewRequestWithContext(context.WithValue(t.Context(), ctxKey{}, &exchange{}), http.MethodPost, "http://up/v1/completions", nil)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("RoundTrip did not panic: the test no longer reaches the path it checks")
			}
		}()
		_, _ = tt.RoundTrip(req) //nolint:bodyclose // it panics before returning a body
	}()
	if body.closed != 1 {
		t.Errorf("upstream body closed %d times, want 1", body.closed)
	}
}
