package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

const secret = "Bearer sk-test-7f3a9c1e5b2d4a6f8e0c"

// upstream is a fake OpenAI-compatible engine. Streams send one token per
// chunk; usage counts prompt tokens as len(body)/3 so that they differ
// from the proxy's estimate.
type upstream struct {
	t        *testing.T
	mu       sync.Mutex
	bodies   [][]byte
	auths    []string
	delay    func(body []byte) time.Duration
	gate     chan struct{} // when set, streams wait on it after the first chunk
	raw      [][]byte      // the bytes each response sent
	received chan struct{}
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, body)
	u.auths = append(u.auths, r.Header.Get("Authorization"))
	u.mu.Unlock()
	if u.received != nil {
		u.received <- struct{}{}
	}
	if u.delay != nil {
		time.Sleep(u.delay(body))
	}
	var out bytes.Buffer
	defer func() {
		u.mu.Lock()
		u.raw = append(u.raw, out.Bytes())
		u.mu.Unlock()
	}()
	write := func(s string) {
		out.WriteString(s)
		io.WriteString(w, s)
		w.(http.Flusher).Flush()
	}
	switch r.URL.Path {
	case "/v1/models":
		write(`{"data":[{"id":"m"}]}`)
		return
	case "/v1/chat/completions", "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Model == "bad" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		write(`{"error":{"message":"model \"bad\" does not exist","type":"invalid_request_error"}}`)
		return
	}
	if req.Model == "keyecho" { // as some servers answer a wrong key
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		write(`{"error":{"message":"Incorrect API key provided: ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}}`)
		return
	}
	n := req.MaxTokens
	if n == 0 {
		n = 4
	}
	chat := r.URL.Path == "/v1/chat/completions"
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":2}}`, len(body)/3, n, len(body)/3+n)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		text := strings.Repeat("tok ", n)
		if chat {
			write(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"length"}],"usage":` + usage + "}")
		} else {
			write(`{"id":"x","choices":[{"index":0,"text":"` + text + `","finish_reason":"length"}],"usage":` + usage + "}")
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i := 0; i < n; i++ {
		finish := "null"
		if i == n-1 {
			finish = `"stop"`
		}
		if chat {
			write(fmt.Sprintf("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d \"},\"finish_reason\":%s}]}\n\n", i, finish))
		} else {
			write(fmt.Sprintf("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\"t%d \",\"finish_reason\":%s}]}\n\n", i, finish))
		}
		if i == 0 && u.gate != nil {
			<-u.gate
		}
		time.Sleep(time.Millisecond)
	}
	if req.StreamOptions.IncludeUsage {
		write(`data: {"id":"x","choices":[],"usage":` + usage + "}\n\n")
	}
	write("data: [DONE]\n\n")
}

type rig struct {
	up    *upstream
	upSrv *httptest.Server
	p     *Proxy
	srv   *httptest.Server
	out   string
	logs  *bytes.Buffer
}

func newRig(t *testing.T, ext string, mod func(*Config)) *rig {
	t.Helper()
	up := &upstream{t: t}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	var logs bytes.Buffer
	cfg := DefaultConfig()
	cfg.Upstream = upSrv.URL
	cfg.Out = filepath.Join(t.TempDir(), "run"+ext)
	cfg.BlockSize = 16
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return &rig{up: up, upSrv: upSrv, p: p, srv: srv, out: cfg.Out, logs: &logs}
}

// post sends body with the secret Authorization header and returns the
// response body bytes.
func (r *rig) post(t *testing.T, path, body string, hdr ...string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", secret)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// finish closes the proxy and reads the trace back.
func (r *rig) finish(t *testing.T) (traces.Meta, []*traces.Request) {
	t.Helper()
	r.srv.Close()
	if err := r.p.Close(); err != nil {
		t.Fatal(err)
	}
	meta, rows, err := traces.ReadAll(r.out)
	if err != nil {
		t.Fatal(err)
	}
	return meta, rows
}

func chatBody(model string, stream, usage bool, msgs ...string) string {
	var m []map[string]string
	for i, s := range msgs {
		role := "user"
		if i == 0 && len(msgs) > 1 {
			role = "system"
		}
		m = append(m, map[string]string{"role": role, "content": s})
	}
	req := map[string]any{"model": model, "messages": m, "max_tokens": 5}
	if stream {
		req["stream"] = true
	}
	if usage {
		req["stream_options"] = map[string]bool{"include_usage": true}
	}
	b, _ := json.Marshal(req)
	return string(b)
}

func TestStreamingWithUsage(t *testing.T) {
	r := newRig(t, ".parquet", nil)
	body := chatBody("llama", true, true, "You are terse.", "Hello there")
	status, got := r.post(t, "/v1/chat/completions", body, "X-Session-Id", "s-42")
	if status != 200 {
		t.Fatalf("status %d: %s", status, got)
	}
	meta, rows := r.finish(t)
	if !bytes.Equal(got, r.up.raw[0]) {
		t.Errorf("client got different bytes than upstream sent:\n%q\n%q", got, r.up.raw[0])
	}
	if string(r.up.bodies[0]) != body {
		t.Errorf("upstream got a different body:\n%s\n%s", r.up.bodies[0], body)
	}
	if r.up.auths[0] != secret {
		t.Errorf("Authorization not passed through: %q", r.up.auths[0])
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	row := rows[0]
	wantPrompt := int32(len(body) / 3)
	if row.PromptTokens != wantPrompt || row.UsagePrompt != wantPrompt || row.OutputTokens != 5 || row.UsageOutput != 5 || row.UsageCached != 2 {
		t.Errorf("tokens: prompt %d/%d output %d/%d cached %d", row.PromptTokens, row.UsagePrompt, row.OutputTokens, row.UsageOutput, row.UsageCached)
	}
	if row.HTTPStatus != 200 || row.Error != "" || row.FinishReason != "stop" || row.Chunks != 5 {
		t.Errorf("observed: status %d error %q finish %q chunks %d", row.HTTPStatus, row.Error, row.FinishReason, row.Chunks)
	}
	if !(row.Arrival <= row.ActualSend && row.ActualSend < row.FirstToken && row.FirstToken < row.LastToken) {
		t.Errorf("times out of order: arrival %d send %d first %d last %d", row.Arrival, row.ActualSend, row.FirstToken, row.LastToken)
	}
	if len(row.TokenTimes) != 5 || row.TokenTimes[0] != row.FirstToken || row.TokenTimes[4] != row.LastToken {
		t.Errorf("token times %v", row.TokenTimes)
	}
	if row.SessionID != "s-42" || row.Class != "llama" || row.ID != "0" {
		t.Errorf("session %q class %q id %q", row.SessionID, row.Class, row.ID)
	}
	if !row.Succeeded() {
		t.Error("row does not count as succeeded")
	}
	if meta.BlockSize != 16 || meta.Source != "proxy" || meta.Extra["proxy.token_estimate"] == "" {
		t.Errorf("meta %+v", meta)
	}
	if _, err := os.Stat(stagingPath(r.out)); !os.IsNotExist(err) {
		t.Errorf("staging file left behind: %v", err)
	}
}

func TestStreamingWithoutUsageEstimates(t *testing.T) {
	r := newRig(t, ".arrows", nil)
	body := chatBody("llama", true, false, "Hello there, how are you?")
	_, got := r.post(t, "/v1/chat/completions", body)
	_, rows := r.finish(t)
	if string(r.up.bodies[0]) != body || bytes.Contains(r.up.bodies[0], []byte("include_usage")) {
		t.Errorf("the proxy altered the request: %s", r.up.bodies[0])
	}
	if !bytes.Equal(got, r.up.raw[0]) {
		t.Error("client got different bytes")
	}
	row := rows[0]
	canon := "<|user|>\nHello there, how are you?\n"
	if row.UsagePrompt != traces.Missing || row.UsageOutput != traces.Missing || row.UsageCached != traces.Missing {
		t.Errorf("usage should be Missing: %d %d %d", row.UsagePrompt, row.UsageOutput, row.UsageCached)
	}
	if want := int32((len(canon) + 3) / 4); row.PromptTokens != want {
		t.Errorf("estimated prompt tokens %d, want %d", row.PromptTokens, want)
	}
	// 5 chunks of "tN " (3 bytes): ceil(15/4) = 4 < 5 chunks, so 5.
	if row.OutputTokens != 5 || row.TokenTimes != nil {
		t.Errorf("estimated output %d, token times %v", row.OutputTokens, row.TokenTimes)
	}
}

func TestNonStreamingAndCompletions(t *testing.T) {
	r := newRig(t, ".csv", func(c *Config) { c.ClassHeader = "X-Tenant" })
	body := chatBody("llama", false, false, "hi")
	_, got := r.post(t, "/v1/chat/completions", body, "X-Tenant", "gold")
	if !bytes.Equal(got, r.up.raw[0]) {
		t.Error("client got different bytes")
	}
	comp := `{"model":"llama","prompt":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20],"max_tokens":3,"stream":true}`
	r.post(t, "/v1/completions", comp)
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	a, b := rows[0], rows[1]
	if a.Class != "gold" || a.OutputTokens != 5 || a.FinishReason != "length" || a.FirstToken != traces.Missing || a.LastToken == traces.Missing || a.Chunks != traces.Missing {
		t.Errorf("non-streamed row: %+v", a)
	}
	// Token-id prompt: exact count, ceil(20/16) = 2 blocks, no usage.
	if b.PromptTokens != 20 || b.UsagePrompt != traces.Missing || len(b.PrefixHashes) != 2 || b.OutputTokens != 3 || b.Class != "llama" {
		t.Errorf("completions row: prompt %d usage %d hashes %d output %d class %q", b.PromptTokens, b.UsagePrompt, len(b.PrefixHashes), b.OutputTokens, b.Class)
	}
}

func TestEqualPrefixesGiveEqualLeadingHashes(t *testing.T) {
	r := newRig(t, ".jsonl", nil)                                 // 16 tokens × 4 bytes = 64-byte blocks
	system := strings.Repeat("You are a careful assistant. ", 10) // 290 bytes
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, system, "What is 2+2?"))
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, system, "Name a colour."))
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, "Something else entirely, long enough to fill a block or two of text.", "x"))
	_, rows := r.finish(t)
	a, b, c := rows[0].PrefixHashes, rows[1].PrefixHashes, rows[2].PrefixHashes
	shared := len("<|system|>\n"+system+"\n<|user|>\n") / 64
	if len(a) < shared+1 || len(b) < shared+1 {
		t.Fatalf("too few hashes: %d %d", len(a), len(b))
	}
	for i := 0; i < shared; i++ {
		if a[i] != b[i] {
			t.Errorf("block %d differs for an equal prefix", i)
		}
	}
	if a[len(a)-1] == b[len(b)-1] {
		t.Error("different prompts end with the same hash")
	}
	if c[0] == a[0] {
		t.Error("different first blocks share a hash")
	}
}

func TestArrivalOrder(t *testing.T) {
	r := newRig(t, ".parquet", nil)
	const n = 6
	// Request i arrives after request i-1 reached the upstream, and is held
	// there until request i+1 has finished: they finish in reverse order.
	release := make([]chan struct{}, n)
	finished := make([]chan struct{}, n)
	for i := range release {
		release[i], finished[i] = make(chan struct{}), make(chan struct{})
	}
	r.up.received = make(chan struct{}, n)
	r.up.delay = func(body []byte) time.Duration {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		var i int
		fmt.Sscan(req.Messages[0].Content, &i)
		<-release[i]
		return 0
	}
	for i := 0; i < n; i++ {
		go func() {
			defer close(finished[i])
			r.post(t, "/v1/chat/completions", chatBody("m", true, true, fmt.Sprint(i)))
		}()
		<-r.up.received
	}
	for i := n - 1; i >= 0; i-- {
		close(release[i])
		<-finished[i]
	}
	_, rows := r.finish(t)
	if len(rows) != n {
		t.Fatalf("%d rows", len(rows))
	}
	for i, row := range rows {
		if row.ID != fmt.Sprint(i) || (i > 0 && row.Arrival < rows[i-1].Arrival) {
			t.Errorf("row %d: id %s arrival %d", i, row.ID, row.Arrival)
		}
		if i > 0 && row.LastToken > rows[i-1].LastToken {
			t.Errorf("row %d finished after row %d: the test did not reverse the order", i, i-1)
		}
	}
}

func TestStreamIsNotBuffered(t *testing.T) {
	r := newRig(t, ".arrows", nil)
	r.up.gate = make(chan struct{})
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody("m", true, true, "hi")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		if !strings.HasPrefix(line, `data: {"id":"x"`) {
			t.Errorf("first line %q", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first event did not reach the client while the upstream held the stream open")
	}
	close(r.up.gate)
}

func TestErrorsAreRecorded(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	status, got := r.post(t, "/v1/chat/completions", chatBody("bad", false, false, "hi"))
	if status != 400 || !bytes.Equal(got, r.up.raw[0]) {
		t.Errorf("error response not passed through: %d %s", status, got)
	}
	r.post(t, "/v1/chat/completions", `{not json`)
	r.upSrv.Close() // the engine goes away
	status, _ = r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	if status != http.StatusBadGateway {
		t.Errorf("status %d with the upstream down, want 502", status)
	}
	_, rows := r.finish(t)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0].HTTPStatus != 400 || rows[0].Error != `HTTP 400: model "bad" does not exist` || rows[0].Succeeded() {
		t.Errorf("400 row: status %d error %q", rows[0].HTTPStatus, rows[0].Error)
	}
	if rows[1].HTTPStatus != 400 {
		t.Errorf("unparsable body row: %+v", rows[1])
	}
	if rows[2].HTTPStatus != traces.Missing || !strings.HasPrefix(rows[2].Error, "upstream: ") || rows[2].ActualSend == traces.Missing {
		t.Errorf("upstream-down row: status %d error %q", rows[2].HTTPStatus, rows[2].Error)
	}
}

// An engine that fails mid-stream answers 200 and reports the error inside
// the stream: the client gets the bytes unchanged, the row is a failure.
func TestErrorInsideStreamIsRecorded(t *testing.T) {
	const stream = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"event: error\ndata: {\"message\":\"engine died\"}\n\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	status, got := r.post(t, "/v1/chat/completions", chatBody("m", true, true, "hi"))
	if status != 200 || string(got) != stream {
		t.Errorf("stream not passed through: %d %q", status, got)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].Succeeded() || rows[0].Error != "server error in the response: engine died" {
		t.Fatalf("rows %+v: want one failure naming the engine's error", rows)
	}
	if st := r.p.Stats(); st.Failed != 1 {
		t.Errorf("stats %+v: want 1 failed", st)
	}
}

// A success whose body the proxy cannot read (here an encoding it does
// not decode) stays a success, passed through unchanged, with lengths
// estimated; Stats counts it, so the estimate does not pass unnoticed.
func TestUnreadableBodyIsCounted(t *testing.T) {
	const junk = "\x28\xb5\x2f\xfd not a body the proxy decodes"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "zstd")
		io.WriteString(w, junk)
	}))
	t.Cleanup(up.Close)
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","max_tokens":7,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Accept-Encoding", "zstd") // the client asked for it: no transparent decoding
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != junk {
		t.Errorf("response not passed through: %d %q", resp.StatusCode, got)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || !rows[0].Succeeded() || rows[0].OutputTokens != 7 || rows[0].UsageOutput != traces.Missing {
		t.Fatalf("rows %+v: want one success with max_tokens (7) as its estimated output", rows)
	}
	if st := r.p.Stats(); st.Unparsed != 1 || st.Failed != 0 {
		t.Errorf("stats %+v: want 1 unparsed, 0 failed", st)
	}
}

// Header values may carry bytes that are not UTF-8 (a Latin-1 session
// id); the row keeps them as valid UTF-8, as Arrow and Parquet need.
func TestHeaderValuesBecomeUTF8(t *testing.T) {
	r := newRig(t, ".parquet", func(c *Config) { c.ClassHeader = "X-Class" })
	if status, got := r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"), "X-Session-Id", "caf\xe9", "X-Class", "t\xffer"); status != 200 {
		t.Fatalf("status %d: %s", status, got)
	}
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].SessionID != "caf\uFFFD" || rows[0].Class != "t\uFFFDer" {
		t.Fatalf("rows %+v: want session \"caf\uFFFD\", class \"t\uFFFDer\"", rows)
	}
}

func TestClientDisconnect(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	r.up.gate = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody("m", true, true, "hi")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(resp.Body).ReadString('\n')
	cancel()
	resp.Body.Close()
	time.Sleep(20 * time.Millisecond)
	close(r.up.gate)
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].Error == "" || rows[0].Succeeded() {
		t.Fatalf("rows %+v", rows)
	}
	t.Logf("recorded error: %q", rows[0].Error)
}

func TestPassThroughIsNotRecorded(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	resp, err := http.Get(r.srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != `{"data":[{"id":"m"}]}` {
		t.Errorf("got %s", b)
	}
	// A recorded request too: a session that captured none writes no trace.
	r.post(t, "/v1/chat/completions", chatBody("m", false, true, "hi"))
	if _, rows := r.finish(t); len(rows) != 1 {
		t.Errorf("%d rows for a GET /v1/models and a chat request, want the chat's only", len(rows))
	}
}

func TestSecretIsNeverWritten(t *testing.T) {
	for _, ext := range []string{".parquet", ".arrows", ".csv", ".jsonl"} {
		t.Run(ext, func(t *testing.T) {
			r := newRig(t, ext, func(c *Config) { c.KeepPrompts = true })
			r.post(t, "/v1/chat/completions", chatBody("m", true, true, "sys", "hi"))
			r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`)
			r.post(t, "/v1/chat/completions", chatBody("bad", false, false, "hi"))
			r.post(t, "/v1/chat/completions", chatBody("keyecho", true, true, "hi"))
			_, rows := r.finish(t)
			if len(rows) != 4 || rows[3].HTTPStatus != 401 || !strings.Contains(rows[3].Error, "Incorrect API key provided: [redacted]") {
				t.Fatalf("%d rows; the last: %+v", len(rows), rows[len(rows)-1])
			}
			dir := filepath.Dir(r.out)
			entries, _ := os.ReadDir(dir)
			token := strings.TrimPrefix(secret, "Bearer ")
			found := 0
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				found++
				if bytes.Contains(b, []byte(token)) {
					t.Errorf("%s contains the API key", e.Name())
				}
			}
			if found != 2 {
				t.Errorf("want the trace and the prompts file, found %d files", found)
			}
			if strings.Contains(r.logs.String(), token) {
				t.Error("the log contains the API key")
			}
			prompts, _ := os.ReadFile(PromptsPath(r.out))
			if !bytes.Contains(prompts, []byte("once upon a time")) || bytes.Count(prompts, []byte("\n")) != 4 {
				t.Errorf("prompts file: %s", prompts)
			}
		})
	}
}

func TestPromptsNotKeptByDefault(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	r.post(t, "/v1/completions", `{"model":"m","prompt":"the secret recipe"}`)
	r.finish(t)
	b, _ := os.ReadFile(r.out)
	if bytes.Contains(b, []byte("secret recipe")) {
		t.Error("prompt text in the trace")
	}
	if _, err := os.Stat(PromptsPath(r.out)); !os.IsNotExist(err) {
		t.Error("prompts file written without KeepPrompts")
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	up := &upstream{t: t, gate: make(chan struct{}), received: make(chan struct{}, 1)}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	cfg := DefaultConfig()
	cfg.Upstream = upSrv.URL
	cfg.Out = filepath.Join(t.TempDir(), "run.parquet")
	p := startServe(t, cfg)
	body := make(chan []byte, 1)
	go func() {
		resp, err := http.Post(p.chatURL(), "application/json", strings.NewReader(chatBody("m", true, true, "hi")))
		if err != nil {
			t.Error(err)
			body <- nil
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body <- b
	}()
	<-up.received
	p.cancel() // SIGINT while a stream is in flight
	time.Sleep(20 * time.Millisecond)
	select {
	case <-p.done:
		t.Fatal("Serve returned before the in-flight stream finished")
	default:
	}
	close(up.gate)
	got := <-body
	if !bytes.HasSuffix(got, []byte("data: [DONE]\n\n")) {
		t.Errorf("the in-flight stream was cut: %q", got)
	}
	res := <-p.done
	if res.err != nil || res.stats.Rows != 1 || res.stats.OutputTokens != 5 || res.stats.Failed != 0 {
		t.Fatalf("Serve: %+v, %v", res.stats, res.err)
	}
	_, rows, err := traces.ReadAll(cfg.Out)
	if err != nil || len(rows) != 1 || rows[0].UsageOutput != 5 {
		t.Fatalf("trace: %v %+v", err, rows)
	}
}

func TestFlushedRowsSurviveACrash(t *testing.T) {
	r := newRig(t, ".parquet", func(c *Config) { c.FlushInterval = time.Millisecond })
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, "one"))
	time.Sleep(5 * time.Millisecond)
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, "two"))
	time.Sleep(20 * time.Millisecond)
	// Without Close, the rows are in the staging Arrow stream's temp file,
	// flushed within FlushInterval of being written.
	tmp := r.p.w.(interface{ TempPath() string }).TempPath()
	n := 0
	for deadline := time.Now().Add(5 * time.Second); n != 2 && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		var err error
		if n, err = traces.CountTolerant(tmp); err != nil {
			t.Fatal(err)
		}
	}
	if n != 2 {
		t.Errorf("%d rows readable before Close, want 2", n)
	}
	r.finish(t)
}

func TestValidate(t *testing.T) {
	good := DefaultConfig()
	good.Upstream, good.Out = "http://127.0.0.1:8000", "t.parquet"
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*Config){
		"Upstream":       func(c *Config) { c.Upstream = "" },
		"Upstream ":      func(c *Config) { c.Upstream = "localhost:8000" },
		"Out":            func(c *Config) { c.Out = "" },
		"Out ":           func(c *Config) { c.Out = "t.txt" },
		"Out  ":          func(c *Config) { c.Out = filepath.Join(t.TempDir(), "none", "t.parquet") },
		"BlockSize":      func(c *Config) { c.BlockSize = 0 },
		"BlockSize ":     func(c *Config) { c.BlockSize = 1 << 40 },
		"TokensPerByte":  func(c *Config) { c.TokensPerByte = 0 },
		"FlushInterval":  func(c *Config) { c.FlushInterval = 0 },
		"FlushInterval ": func(c *Config) { c.FlushInterval = 2 * time.Second },
		"MaxRequestBody": func(c *Config) { c.MaxRequestBody = 0 },
	} {
		c := good
		mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(name)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New accepted an empty config")
	}
	// A refused upstream is named without its credentials.
	for _, up := range []string{"ftp://user:s3cret@host/v1?api-key=k3y", "http://user:s3cret@host:port/?api-key=k3y", "http://user:s3cret@/x?api-key=k3y"} {
		c := good
		c.Upstream = up
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "Upstream") || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "k3y") {
			t.Errorf("%s: %v", up, err)
		}
	}
}

// upstreamHeaders sends one request with hdr through a proxy and returns
// the headers the upstream saw.
// upstreamHeaders are the headers the upstream gets for one request with
// hdr set, through a proxy whose --upstream carries userinfo ("": none).
func upstreamHeaders(t *testing.T, userinfo string, hdr map[string]string) http.Header {
	t.Helper()
	var mu sync.Mutex
	var got http.Header
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	cfg := DefaultConfig()
	cfg.Upstream = up.URL
	if userinfo != "" {
		cfg.Upstream = strings.Replace(up.URL, "://", "://"+userinfo+"@", 1)
	}
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	return got
}

// Forwarded and X-Forwarded-* pass as the client sent them.
func TestForwardedHeadersKept(t *testing.T) {
	got := upstreamHeaders(t, "", map[string]string{"Forwarded": "for=192.0.2.60;proto=https", "X-Forwarded-For": "192.0.2.60"})
	if got.Get("X-Forwarded-For") != "192.0.2.60" {
		t.Errorf("X-Forwarded-For dropped")
	}
	if got.Get("Forwarded") == "" {
		t.Errorf("Forwarded header dropped: %v", got)
	}
}

// The proxy asks for no compression the client did not ask for: the
// engine would otherwise gzip what the client gets plain.
func TestNoAcceptEncodingAdded(t *testing.T) {
	got := upstreamHeaders(t, "", nil)
	if v := got.Get("Accept-Encoding"); v != "" {
		t.Errorf("upstream got Accept-Encoding %q the client never sent", v)
	}
}

// An --upstream with a user and password authenticates as that user
// (HTTP basic), unless the client sent credentials of its own.
func TestUpstreamUserinfoAuthenticates(t *testing.T) {
	got := upstreamHeaders(t, "alice:s3cret", nil)
	r := http.Request{Header: got}
	if u, pw, ok := r.BasicAuth(); !ok || u != "alice" || pw != "s3cret" {
		t.Errorf("upstream got Authorization %q, want basic alice:s3cret", got.Get("Authorization"))
	}
	got = upstreamHeaders(t, "alice:s3cret", map[string]string{"Authorization": "Bearer sk-client"})
	if v := got.Get("Authorization"); v != "Bearer sk-client" {
		t.Errorf("upstream got Authorization %q, want the client's own", v)
	}
	if v := upstreamHeaders(t, "", nil).Get("Authorization"); v != "" {
		t.Errorf("upstream got Authorization %q with no userinfo", v)
	}
}

// TestUpstreamSecretsEchoedAreMasked: an upstream that echoes the
// credentials and query of --upstream in its error has them masked in the
// row, as the client's own key is.
func TestUpstreamSecretsEchoedAreMasked(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"no access for %s / %s with %s"}}`, user, pw, r.URL.Query().Get("api-key"))
	}))
	defer up.Close()
	cfg := DefaultConfig()
	cfg.Upstream = strings.Replace(up.URL, "://", "://userLEAK:pwLEAK@", 1) + "/?api-key=queryLEAK"
	cfg.Out = filepath.Join(t.TempDir(), "run.jsonl")
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("LEAK")) || !bytes.Contains(b, []byte("no access for [redacted] / [redacted] with [redacted]")) {
		t.Errorf("trace: %s", b)
	}
}

// A request body over MaxRequestBody is refused with 413, never reaches
// the engine and is recorded as a failure; one at the limit goes through.
func TestRequestBodyOverLimitRefused(t *testing.T) {
	small := chatBody("m", false, false, "hi")
	r := newRig(t, ".jsonl", func(c *Config) { c.MaxRequestBody = int64(len(small)) })
	if status, _ := r.post(t, "/v1/chat/completions", small); status != http.StatusOK {
		t.Fatalf("body at the limit: status %d", status)
	}
	big := chatBody("m", false, false, "hi there")
	status, got := r.post(t, "/v1/chat/completions", big)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(got), fmt.Sprintf("over %d bytes", len(small))) {
		t.Errorf("body over the limit: status %d %q, want 413 naming the limit", status, got)
	}
	if len(r.up.raw) != 1 {
		t.Errorf("the engine got %d requests, want 1", len(r.up.raw))
	}
	_, rows := r.finish(t)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if rows[0].Error != "" || rows[1].Succeeded() || rows[1].Error != fmt.Sprintf("request body over %d bytes: not forwarded", len(small)) {
		t.Errorf("rows: %q, %q", rows[0].Error, rows[1].Error)
	}
}
