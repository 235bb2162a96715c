package replay

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
)

// A stream that stalls in the middle of an SSE line until the per-request
// timeout fires must be recorded as a timeout, not as a bad stream.
// A line cut by a timeout or a reset is no event: the request fails as
// what cut it, not as a malformed stream.
func TestTimeoutMidLineIsATimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"b")) // the rest never comes
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Timeout = 200 * time.Millisecond
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if k := ErrorKind(out[0].Error); k != KindTimeout {
		t.Fatalf("kind %q, want %q (error %q)", k, KindTimeout, out[0].Error)
	}
}

// A connection reset in the middle of an SSE line is a connection failure.
func TestResetMidLineIsAConnectionFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					c.Close()
					return
				}
				buf := make([]byte, req.ContentLength)
				br.Read(buf)
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" +
					"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
					"data: {\"choices\":[{\"delta\":{\"content\":\"b"))
				time.Sleep(50 * time.Millisecond)
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}(c)
		}
	}()
	cfg := testConfig(nil)
	cfg.BaseURL = "http://" + ln.Addr().String() + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if k := ErrorKind(out[0].Error); k != KindConnection {
		t.Fatalf("kind %q, want %q (error %q)", k, KindConnection, out[0].Error)
	}
}

// A base URL with a query string (e.g. ?api-version=...) must keep the
// query on the request, with the endpoint path appended to the path.
// The endpoint path goes on the base URL's path, before its query
// (Azure OpenAI's api-version).
func TestBaseURLQueryIsKept(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.BaseURL = srv.BaseURL() + "?api-version=2024-06-01"
	s, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if s.Succeeded != 1 {
		t.Fatalf("request failed: %q", out[0].Error)
	}
}

// Credentials in the base URL's user info are stripped from the output
// metadata (OutputMeta); they must not reach the Error column either.
func TestBaseURLPasswordNeverWritten(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Fault: func(int) replaytest.Fault { return replaytest.Status }})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.BaseURL = strings.Replace(srv.BaseURL(), "http://", "http://user:hunter2secret@", 1)
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if out[0].Error == "" {
		t.Fatal("expected a failure")
	}
	if strings.Contains(out[0].Error, "hunter2secret") {
		t.Fatalf("Error column holds the base URL's password: %q", out[0].Error)
	}
}

// A key with trailing whitespace: servers trim it and echo it in the 401
// body. redact() scrubs the trimmed key from Error; saveRaw must too.
// A key set with whitespace around it is masked as the server would
// echo it, trimmed, in raw bodies as in the Error column.
func TestSaveRawMasksTrimmedKey(t *testing.T) {
	const key = "sk-servesim-TRIMLEAK-12345"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + got + `"}}`))
	}))
	defer srv.Close()
	t.Setenv("SERVESIM_TRIM_KEY", key+" ")
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKeyEnv = "SERVESIM_TRIM_KEY"
	cfg.SaveRaw = t.TempDir()
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if strings.Contains(out[0].Error, "TRIMLEAK") {
		t.Fatalf("Error holds the key: %q", out[0].Error)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*"))
	if len(files) == 0 {
		t.Fatal("no raw file")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "TRIMLEAK") {
			t.Errorf("%s holds the API key: %s", filepath.Base(f), b)
		}
	}
}

// An error object whose "error" is a string (TGI's in-stream shape:
// {"error":"...","error_type":"..."}), or an object without "message",
// is an error in the stream, not an undecodable chunk.
// An error object go-openai cannot decode is still the server's error:
// TGI sends a string, others an object without a message.
func TestStreamErrorShapes(t *testing.T) {
	for _, ev := range []string{
		`{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}`,
		`{"error":{"code":500,"type":"internal_error"}}`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"))
			w.Write([]byte("data: " + ev + "\n\n"))
		}))
		cfg := testConfig(nil)
		cfg.BaseURL = srv.URL + "/v1"
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if k := ErrorKind(out[0].Error); k != KindStreamError {
			t.Errorf("%s: kind %q, want %q (error %q)", ev, k, KindStreamError, out[0].Error)
		}
	}
}

// Azure OpenAI's first chunk has no choices and the prompt's filter
// results: part of a good stream, not an empty-choices failure.
func TestAzureFilterPreambleIsNoFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}` + "\n\n"))
		for i := 0; i < 5; i++ {
			w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"ab"},"content_filter_results":{}}]}` + "\n\n"))
		}
		w.Write([]byte(`data: {"choices":[],"usage":{"prompt_tokens":60,"completion_tokens":5,"total_tokens":65}}` + "\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = srv.URL + "/v1"
	s, out := runRows(t, cfg, rows(1, 0, 40, 5))
	if s.Succeeded != 1 || out[0].UsageOutput != 5 || len(out[0].TokenTimes) != 5 {
		t.Fatalf("error %q, %d tokens timed: want a success of 5 tokens", out[0].Error, len(out[0].TokenTimes))
	}
}
