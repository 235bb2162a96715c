package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// A client that compresses its request body: the engine gets the bytes as
// sent, and the row describes the JSON inside them (model, prompt length,
// prefix hashes), as for the same request sent plain.
func TestGzipRequestIsDescribed(t *testing.T) {
	var (
		mu  sync.Mutex
		got [][]byte
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	body := chatBody("llama", false, false, "You are terse and you answer in one short sentence.", "Hello there, how are you today?")
	r.post(t, "/v1/chat/completions", body)
	zipped := gzipped([]byte(body))
	r.post(t, "/v1/chat/completions", string(zipped), "Content-Encoding", "gzip")
	_, rows := r.finish(t)
	mu.Lock()
	defer mu.Unlock()
	if len(rows) != 2 || len(got) != 2 {
		t.Fatalf("%d rows, %d requests upstream", len(rows), len(got))
	}
	if !bytes.Equal(got[1], zipped) {
		t.Error("the compressed body did not reach the engine unchanged")
	}
	plain, zip := rows[0], rows[1]
	if zip.Class != "llama" || zip.PromptTokens != plain.PromptTokens || !slices.Equal(zip.PrefixHashes, plain.PrefixHashes) {
		t.Errorf("gzip row: class %q, prompt tokens %d, hashes %x; want those of the plain row: %q, %d, %x",
			zip.Class, zip.PromptTokens, zip.PrefixHashes, plain.Class, plain.PromptTokens, plain.PrefixHashes)
	}
	if st := r.p.Stats(); st.Unparsed != 0 {
		t.Errorf("stats %+v: the gzip request counted as unparsed", st)
	}
}
