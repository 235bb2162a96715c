package replay

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Chunks an endless server repeats: content, SSE comment lines (no
// events), and data events with an empty delta (no content).
const (
	contentChunk    = `data: {"choices":[{"delta":{"content":"tok"}}]}` + "\n\n"
	keepAliveChunk  = ": keep-alive\n\n"
	emptyDeltaChunk = `data: {"choices":[{"delta":{}}]}` + "\n\n"
)

// endlessServer streams chunk over and over until the client goes away,
// as a faulty server that ignores max_tokens does.
func endlessServer(chunk string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, strings.Repeat(chunk, 16)); err != nil {
				return
			}
			fl.Flush()
		}
	}))
}

// A server that streams content far past max_tokens fails the request as
// a bad stream as soon as it is past any count max_tokens allows, rather
// than growing the client's memory until the timeout.
func TestStreamPastMaxTokensFailsEarly(t *testing.T) {
	srv := endlessServer(contentChunk)
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 3 * time.Second
	begin := time.Now()
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	r := out[0]
	if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, "max_tokens 5") || !strings.Contains(r.Error, "74 content chunks") {
		t.Errorf("error %q, want a bad stream naming 74 content chunks and max_tokens 5", r.Error)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("the request took %v: the stream was read until the timeout", took)
	}
}

// A raw body is saved only up to maxRawBytes, marked as cut: a server
// streaming without end (here comment lines, which no event count stops)
// would otherwise grow it until the timeout.
func TestSavedRawBodyIsBounded(t *testing.T) {
	defer func(n int) { maxRawBytes = n }(maxRawBytes)
	maxRawBytes = 64 << 10
	srv := endlessServer(keepAliveChunk)
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 300 * time.Millisecond
	cfg.SaveRaw = filepath.Join(t.TempDir(), "raw")
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if ErrorKind(out[0].Error) != KindTimeout {
		t.Fatalf("error %q, want the timeout", out[0].Error)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*.sse"))
	if len(files) != 1 {
		t.Fatalf("raw bodies %v, want one", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > maxRawBytes+200 || !strings.Contains(string(raw), "cut at 65536 bytes") {
		t.Errorf("saved %d bytes (ending %q), want at most the first %d, marked as cut", len(raw), raw[max(0, len(raw)-100):], maxRawBytes)
	}
}

// The note on a cut raw body gives the bytes saved above it: masking a
// key the stream echoes changes the length, so the count of bytes read
// before the cut is not what the file holds.
func TestCutRawBodyNoteCountsTheBytesSaved(t *testing.T) {
	defer func(n int) { maxRawBytes = n }(maxRawBytes)
	maxRawBytes = 16 << 10
	const key = "sk-servesim-RAWCUT-0123456789abcdefghij"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `data: {"id":"` + got + `","choices":[{"delta":{"role":"assistant"}}]}` + "\n\n"
		fl := w.(http.Flusher)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, strings.Repeat(chunk, 16)); err != nil {
				return
			}
			fl.Flush()
		}
	}))
	defer srv.Close()
	t.Setenv("SERVESIM_RAWCUT_KEY", key)
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKeyEnv = "SERVESIM_RAWCUT_KEY"
	cfg.Timeout = 300 * time.Millisecond
	cfg.SaveRaw = filepath.Join(t.TempDir(), "raw")
	runRows(t, cfg, rows(1, 0, 40, 5))
	files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*.sse"))
	if len(files) != 1 {
		t.Fatalf("raw bodies %v, want one", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	body, note, ok := strings.Cut(string(raw), "\n\n: servesim: raw body cut")
	if !ok || strings.Contains(body, key[:12]) {
		t.Fatalf("raw body (ending %q): want it masked and marked as cut", raw[max(0, len(raw)-200):])
	}
	if want := fmt.Sprintf("%d bytes saved above", len(body)); !strings.Contains(note, want) {
		t.Errorf("note %q: want %q, the length of the body saved", note, want)
	}
	if want := fmt.Sprintf("at %d bytes of the", maxRawBytes); !strings.Contains(note, want) {
		t.Errorf("note %q: want %q, where the body read was cut", note, want)
	}
}
