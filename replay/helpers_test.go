package replay

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// sliceReader is an in-memory traces.Reader.
type sliceReader struct {
	meta traces.Meta
	rows []*traces.Request
	i    int
}

func (r *sliceReader) Meta() traces.Meta   { return r.meta }
func (r *sliceReader) Next() bool          { r.i++; return r.i <= len(r.rows) }
func (r *sliceReader) At() *traces.Request { return r.rows[r.i-1] }
func (r *sliceReader) Err() error          { return nil }
func (r *sliceReader) Close() error        { return nil }

// memWriter is an in-memory traces.Writer that counts flushes.
type memWriter struct {
	mu      sync.Mutex
	rows    []*traces.Request
	flushes int
}

func (w *memWriter) Write(r *traces.Request) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rows = append(w.rows, r.Clone())
	return nil
}
func (w *memWriter) Flush() error { w.mu.Lock(); w.flushes++; w.mu.Unlock(); return nil }
func (w *memWriter) Close() error { return nil }
func (w *memWriter) Abort()       {}

// rows makes n requests spaced gap apart.
func rows(n int, gap time.Duration, prompt, output int32) []*traces.Request {
	out := make([]*traces.Request, n)
	for i := range out {
		r := &traces.Request{}
		r.Reset()
		r.ID = "r" + string(rune('a'+i%26)) + itoa(i)
		r.Arrival = int64(i) * int64(gap)
		r.PromptTokens, r.OutputTokens = prompt, output
		out[i] = r
	}
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// testConfig points at srv with the test engine's text model.
func testConfig(srv *replaytest.Server) Config {
	cfg := DefaultConfig()
	if srv != nil {
		cfg.BaseURL = srv.BaseURL()
	}
	cfg.Model = "servesim-tiny"
	cfg.APIKeyEnv = "SERVESIM_TEST_KEY_UNSET"
	cfg.Text = TextModel{TokensPerByte: 1, Overhead: 20}
	cfg.Timeout = 5 * time.Second
	return cfg
}

// mustClient is a client for cfg, saving no raw bodies.
func mustClient(tb testing.TB, cfg *Config) *client {
	tb.Helper()
	c, err := newClient(cfg, "")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// runRows runs rows against srv and returns the written rows in input order.
func runRows(t *testing.T, cfg Config, in []*traces.Request) (*Summary, []*traces.Request) {
	t.Helper()
	return runFrom(t, cfg, &sliceReader{rows: in}, in)
}

// runFrom is runRows with the rows in read from r.
func runFrom(t *testing.T, cfg Config, r traces.Reader, in []*traces.Request) (*Summary, []*traces.Request) {
	t.Helper()
	w := &memWriter{}
	s, err := Run(t.Context(), cfg, r, w)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	byID := map[string]*traces.Request{}
	for _, r := range w.rows {
		byID[r.ID] = r
	}
	out := make([]*traces.Request, len(in))
	for i, r := range in {
		out[i] = byID[r.ID]
		if out[i] == nil {
			t.Fatalf("row %s not written", r.ID)
		}
	}
	return s, out
}

// replayPacedStream replays one row of the given output length against a
// server that streams events as SSE data lines, those from index late on
// 30ms after the ones before, so the two groups arrive at distinct times.
func replayPacedStream(t *testing.T, events []string, late int, output int32) *traces.Request {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range events {
			if i == late {
				time.Sleep(30 * time.Millisecond)
			}
			w.Write([]byte("data: " + e + "\n\n"))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, output))
	return out[0]
}

// tokensAtFirstChunk counts the row's token times that fall on its first token.
func tokensAtFirstChunk(r *traces.Request) int {
	n := 0
	for _, at := range r.TokenTimes {
		if at == r.FirstToken {
			n++
		}
	}
	return n
}
