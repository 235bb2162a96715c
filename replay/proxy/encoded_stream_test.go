package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// flushWriter is a compressor that can push out what it holds.
type flushWriter interface {
	io.WriteCloser
	Flush() error
}

// A compressed stream, flushed after every event as an engine (or a
// gateway before it) does, is timed as a plain one: each event when it
// arrived, not all at the stream's end. The client gets the compressed
// bytes unchanged.
func TestEncodedStreamIsTimed(t *testing.T) {
	const gap = 150 * time.Millisecond
	encoders := map[string]func(io.Writer) flushWriter{
		"gzip": func(w io.Writer) flushWriter { return gzip.NewWriter(w) },
		"br":   func(w io.Writer) flushWriter { return brotli.NewWriter(w) },
	}
	for enc, newEncoder := range encoders {
		t.Run(enc, func(t *testing.T) {
			var (
				mu   sync.Mutex
				sent []int64
				raw  bytes.Buffer
				p    *Proxy
			)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Content-Encoding", enc)
				mu.Lock()
				defer mu.Unlock()
				zw := newEncoder(io.MultiWriter(w, &raw))
				event := func(s string) {
					io.WriteString(zw, "data: "+s+"\n\n")
					zw.Flush()
					w.(http.Flusher).Flush()
				}
				for i := range 4 {
					sent = append(sent, p.now())
					event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"t%d "},"finish_reason":null}]}`, i))
					time.Sleep(gap)
				}
				event(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`)
				event("[DONE]")
				zw.Close()
				w.(http.Flusher).Flush()
			}))
			t.Cleanup(up.Close)
			r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
			p = r.p
			status, got := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"), "Accept-Encoding", enc)
			_, rows := r.finish(t)
			mu.Lock()
			defer mu.Unlock()
			if status != 200 || !bytes.Equal(got, raw.Bytes()) {
				t.Fatalf("status %d: the client did not get the %s bytes the engine sent", status, enc)
			}
			if len(rows) != 1 || !rows[0].Succeeded() {
				t.Fatalf("rows %+v: want one success", rows)
			}
			row := rows[0]
			if row.FirstToken < sent[0] || row.FirstToken >= sent[1] {
				t.Errorf("first token at %v, want between the first event's send (%v) and the second's (%v)",
					time.Duration(row.FirstToken), time.Duration(sent[0]), time.Duration(sent[1]))
			}
			if len(row.TokenTimes) != 4 {
				t.Fatalf("token times %v: want one per event", row.TokenTimes)
			}
			for i, at := range row.TokenTimes {
				next := sent[i] + int64(gap)
				if i+1 < len(sent) {
					next = sent[i+1]
				}
				if at < sent[i] || at >= next {
					t.Errorf("token %d at %v, want between its event's send (%v) and the next (%v)",
						i, time.Duration(at), time.Duration(sent[i]), time.Duration(next))
				}
			}
			if st := r.p.Stats(); st.Unparsed != 0 {
				t.Errorf("stats %+v: the %s stream counted as unparsed", st, enc)
			}
		})
	}
}

// A stream in an encoding the proxy does not decode (not gzip or br) is
// not read at all, as it arrives or at its end: it is counted once, as a
// body the proxy could not read, and the trace's metadata says such a row
// has no times, so the missing times do not pass for a stream that sent
// no tokens.
func TestUndecodedStreamIsCounted(t *testing.T) {
	const junk = "\x28\xb5\x2f\xfd not a body the proxy decodes"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "zstd")
		io.WriteString(w, junk)
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	status, got := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"), "Accept-Encoding", "zstd")
	if status != 200 || string(got) != junk {
		t.Fatalf("response not passed through: %d %q", status, got)
	}
	meta, rows := r.finish(t)
	if len(rows) != 1 || !rows[0].Succeeded() || rows[0].TokenTimes != nil {
		t.Fatalf("rows %+v: want one success without token times", rows)
	}
	if st := r.p.Stats(); st.Unparsed != 1 {
		t.Errorf("stats %+v: want the zstd stream counted as unparsed", st)
	}
	note := meta.Extra["proxy.encodings"]
	if !strings.Contains(note, "gzip") || !strings.Contains(note, "TokenTimes") || strings.Contains(note, "read only at its end") {
		t.Errorf("metadata proxy.encodings = %q: want which encodings are read and that the others are not, so lack times", note)
	}
}

// A stream labelled gzip or br whose bytes do not decode is a body the
// proxy cannot read, not a stream cut before its end: whether it sent
// data: [DONE] is unknown, so it stays a success, counted in Unparsed, as
// a body in an encoding the proxy does not decode is.
func TestUndecodableStreamIsUnparsed(t *testing.T) {
	const body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
	for _, enc := range []string{"gzip", "br"} {
		t.Run(enc, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Content-Encoding", enc) // mislabelled: the body is plain
				io.WriteString(w, body)
			}))
			t.Cleanup(up.Close)
			r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
			status, got := r.post(t, "/v1/chat/completions", chatBody("m", true, false, "hi"), "Accept-Encoding", enc)
			if status != 200 || string(got) != body {
				t.Fatalf("response not passed through: %d %q", status, got)
			}
			_, rows := r.finish(t)
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1", len(rows))
			}
			if !rows[0].Succeeded() {
				t.Fatalf("row failed (%q): want a success", rows[0].Error)
			}
			if st := r.p.Stats(); st.Unparsed != 1 {
				t.Errorf("stats %+v: want the %s body that does not decode counted as unparsed", st, enc)
			}
		})
	}
}

// A client gone in the middle of a compressed stream ends its decoder
// with the exchange: the row is written as a disconnect, and no decoding
// goroutine is left waiting on a body that will not come.
func TestEncodedStreamClientGone(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, `data: {"choices":[{"index":0,"delta":{"content":"a"}}]}`+"\n\n")
		zw.Flush()
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody("m", true, true, "hi")))
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(resp.Body).ReadByte() // the first event is under way
	cancel()
	resp.Body.Close()
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].Error != "client disconnected" {
		t.Fatalf("rows %+v: want one, its client disconnected", rows)
	}
	stacks := make([]byte, 1<<20)
	stacks = stacks[:runtime.Stack(stacks, true)]
	if bytes.Contains(stacks, []byte("decodingParser")) {
		t.Errorf("a stream decoder outlived its exchange:\n%s", stacks)
	}
}
