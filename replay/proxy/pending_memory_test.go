package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A finished row waits for every earlier arrival, so one stuck request
// holds all later rows: each must keep only what its row needs, not its
// prompt (held twice: the raw messages and the rendered text).
func TestFinishedRowWaitingForAnEarlierOneFreesItsPrompt(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "keep-prompts"}[keep], func(t *testing.T) {
			release := make(chan struct{})
			arrived := make(chan struct{}, 1)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if r.Header.Get("X-Hold") != "" {
					arrived <- struct{}{}
					<-release
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
			}))
			defer up.Close()
			r := newRig(t, ".arrows", func(c *Config) {
				c.Upstream = up.URL
				c.BlockSize = 1 << 20 // few hashes: the prompt is what is measured
				c.KeepPrompts = keep
			})
			var held sync.WaitGroup
			held.Add(1)
			go func() {
				defer held.Done()
				r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hold"), "X-Hold", "1")
			}()
			<-arrived
			const n, size = 8, 2 << 20
			before := heapInUse()
			for i := 0; i < n; i++ {
				body := chatBody("m", false, false, strings.Repeat(string(rune('a'+i)), size))
				if status, _ := r.post(t, "/v1/chat/completions", body); status != 200 {
					t.Fatalf("status %d", status)
				}
			}
			// A handler files its row just after its response ends.
			waiting := 0
			for deadline := time.Now().Add(5 * time.Second); waiting != n && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				r.p.mu.Lock()
				waiting = len(r.p.pending)
				r.p.mu.Unlock()
			}
			grew := heapInUse() - before
			close(release)
			held.Wait()
			if waiting != n {
				t.Fatalf("%d rows waiting, want %d", waiting, n)
			}
			// Without prompts kept, a waiting row holds next to nothing;
			// with them, the raw messages once (for the prompts file).
			limit := int64(n * size / 4)
			if keep {
				limit = int64(n*size + n*size/4)
			}
			if grew > limit {
				t.Errorf("%d rows waiting hold %d MiB, want at most %d MiB", n, grew>>20, limit>>20)
			}
			if _, rows := r.finish(t); len(rows) != n+1 {
				t.Errorf("%d rows, want %d", len(rows), n+1)
			}
		})
	}
}
