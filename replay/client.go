package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gojson "github.com/goccy/go-json"
	openai "github.com/sashabaranov/go-openai"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/secret"
	"github.com/servesim/servesim/internal/textcut"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/replay/sse"
	"github.com/servesim/servesim/replay/tokentime"
	"github.com/servesim/servesim/traces"
)

// Error kinds. A failed request's Error reads "<kind>: <detail>"; ErrorKind
// extracts the kind and the Summary counts failures by it.
const (
	KindAuth         = "auth"          // HTTP 401 or 403
	KindNotFound     = "not_found"     // HTTP 404
	KindRateLimited  = "rate_limited"  // HTTP 429
	KindServer       = "server_error"  // HTTP 5xx
	KindHTTP         = "http_error"    // any other non-200 status
	KindConnection   = "connection"    // refused, reset, closed before or during the response
	KindTimeout      = "timeout"       // Config.Timeout passed
	KindNoDone       = "no_done"       // the stream ended without data: [DONE]
	KindStreamError  = "stream_error"  // an error object (or event: error) inside the stream, or finish_reason abort/error
	KindEmptyChoices = "empty_choices" // a chunk with empty choices that was neither the usage chunk nor Azure's filter preamble
	KindNoUsage      = "no_usage"      // [DONE] came but no chunk carried usage
	KindBadStream    = "bad_stream"    // undecodable chunk, or usage and content disagree
	KindCanceled     = "canceled"      // the run was interrupted, or stopped by a write error
	KindClient       = "client"        // the request could not be sent for a local reason
)

// ErrorKind returns the kind prefix of a request's Error ("" if none).
func ErrorKind(msg string) string {
	if msg == "" {
		return ""
	}
	k, _, ok := strings.Cut(msg, ":")
	if !ok || strings.ContainsAny(k, " \t") {
		return KindClient
	}
	return k
}

// client sends one streaming request and fills a row's observed columns.
// Why not go-openai's stream client: its Recv returns io.EOF both after
// [DONE] and when the body simply ends (so a missing [DONE] is invisible),
// its request structs cannot carry ignore_eos or continuous_usage_stats
// and drop temperature 0 (omitempty), and it gives no hook to timestamp
// reads. So requests and SSE parsing are ours (net/http), and go-openai
// supplies the wire types it has (Usage, APIError, ChatCompletionMessage).
type client struct {
	hc       *http.Client
	url      string // the endpoint: the base URL's path + endpointPath, its query kept
	shown    string // url with any password in it masked and no query, for messages
	cfg      *Config
	key      string     // from the environment; only ever put in the header
	keyState string     // describes the key without revealing it
	secrets  secret.Set // the key, the URL's user, password and query: never written
	rawDir   string
	// Raw bodies that could not be saved, and the first one's error.
	rawFailed   atomic.Int64
	rawFirstErr atomic.Pointer[error]
}

// CheckAPIKey refuses a key in the environment variable env that no HTTP
// header can carry. Go's client refuses to send such a header, so every
// request (and every health check) would fail with an error that names
// neither the key nor where it came from. The error never shows the key.
func CheckAPIKey(env string) error {
	key := os.Getenv(env)
	if i := strings.IndexFunc(key, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("replay: the API key in $%s holds a control character (byte %#02x, at %d of its %d bytes: a line break from a file?), which an HTTP header cannot carry",
			env, key[i], i+1, len(key))
	}
	return nil
}

func newClient(cfg *Config, rawDir string) (*client, error) {
	if err := CheckAPIKey(cfg.APIKeyEnv); err != nil {
		return nil, err
	}
	key, set := os.LookupEnv(cfg.APIKeyEnv)
	state := "set (" + strconv.Itoa(len(key)) + " characters)"
	switch {
	case !set:
		state = "unset"
	case key == "":
		state = "empty"
	case strings.TrimSpace(key) != key:
		state = "set, with leading or trailing whitespace (" + strconv.Itoa(len(key)) + " characters)"
	}
	idle := cfg.MaxIdle
	if idle == 0 {
		idle = max(cfg.Concurrency, 1024)
	}
	tr := &http.Transport{
		Proxy:               nil, // measure the server, not a proxy from the environment
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     4 * time.Second, // under common server keep-alive (uvicorn: 5 s): no stale reuse
		DisableCompression:  true,            // SSE must arrive as sent
		ForceAttemptHTTP2:   false,
	}
	// A redirect is the server's answer: following it would resend the
	// POST as a bodiless GET (301, 302, 303) to another URL.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &client{hc: &http.Client{Transport: tr, CheckRedirect: noRedirect}, cfg: cfg, key: key, keyState: state, rawDir: rawDir}
	c.url, c.shown = cfg.BaseURL+endpointPath(cfg.Endpoint), urlshow.String(cfg.BaseURL)
	if u, err := url.Parse(cfg.BaseURL); err == nil { // Validate has parsed it
		// The escaped path too: an escape in it (%40, %2F) is the
		// server's to read, and Path alone would be sent unescaped.
		ep := endpointPath(cfg.Endpoint)
		u.Path, u.RawPath = strings.TrimRight(u.Path, "/")+ep, strings.TrimRight(u.EscapedPath(), "/")+ep
		c.url, c.shown = u.String(), urlshow.URL(u)
		c.secrets = secret.New(append(secret.URL(u), secret.Env(cfg.APIKeyEnv))...)
	} else {
		c.secrets = secret.New(secret.Env(cfg.APIKeyEnv))
	}
	return c, nil
}

func endpointPath(e Endpoint) string {
	if e == Completions {
		return "/completions"
	}
	return "/chat/completions"
}

func (c *client) close() { c.hc.CloseIdleConnections() }

// requestBody is both endpoints' request. Temperature has no omitempty:
// 0 must reach the server (its default is often 1).
type requestBody struct {
	Model         string                         `json:"model"`
	Messages      []openai.ChatCompletionMessage `json:"messages,omitempty"`
	Prompt        string                         `json:"prompt,omitempty"`
	MaxTokens     int                            `json:"max_tokens"`
	Temperature   float64                        `json:"temperature"`
	Stream        bool                           `json:"stream"`
	StreamOptions streamOptions                  `json:"stream_options"`
	IgnoreEOS     bool                           `json:"ignore_eos,omitempty"`
}

// streamOptions is openai.StreamOptions with vLLM's and SGLang's
// continuous_usage_stats, sent only when asked for.
type streamOptions struct {
	IncludeUsage    bool `json:"include_usage"`
	ContinuousUsage bool `json:"continuous_usage_stats,omitempty"`
}

// sentMaxTokens is the max_tokens sent for a row of outputTokens: at
// least 1, since OpenAI-compatible servers refuse 0, and at most
// Config.MaxTokens, as the simulator caps a plan's outputs.
func (c *client) sentMaxTokens(outputTokens int) int {
	n := max(outputTokens, 1)
	if c.cfg.MaxTokens > 0 {
		n = min(n, c.cfg.MaxTokens)
	}
	return n
}

// body encodes the request for prompt text and a row's output tokens.
func (c *client) body(prompt []byte, outputTokens int) []byte {
	rb := requestBody{
		Model:         c.cfg.Model,
		MaxTokens:     c.sentMaxTokens(outputTokens),
		Temperature:   c.cfg.Temperature,
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true, ContinuousUsage: c.cfg.ContinuousUsage},
		IgnoreEOS:     c.cfg.IgnoreEOS,
	}
	if c.cfg.Endpoint == Completions {
		rb.Prompt = string(prompt)
	} else {
		rb.Messages = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: string(prompt)}}
	}
	b, err := json.Marshal(&rb)
	if err != nil {
		panic(err) // plain strings and numbers always encode
	}
	return b
}

// wireChunk is one streamed chunk of either endpoint, or an error.
type wireChunk struct {
	Choices []wireChoice     `json:"choices"`
	Usage   *wireUsage       `json:"usage"`
	Error   *openai.APIError `json:"error"`
	Object  string           `json:"object"`  // "error" in vLLM's error shape
	Message string           `json:"message"` // ...whose text is here
	// Azure OpenAI opens a stream with a chunk of no choices that holds
	// the prompt's content-filter results.
	PromptFilterResults json.RawMessage `json:"prompt_filter_results"`
}

// wireUsage is openai.Usage whose cached token count can be told absent
// (or null) from a reported 0: its Details shadows the embedded field.
type wireUsage struct {
	openai.Usage
	Prompt  *int `json:"prompt_tokens"`     // shadows the embedded field: absent is not 0
	Output  *int `json:"completion_tokens"` // as Prompt
	Details *struct {
		Cached *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type wireChoice struct {
	Index choiceIndex `json:"index"`
	Delta struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
	} `json:"delta"`
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"`
}

// choiceIndex is a choice's index as every "index" key of the choice gives
// it: go-json keeps a repeated key's last value, which would let
// "index":1,"index":0 pass as choice 0.
type choiceIndex struct {
	other int // the last value other than 0 (null is 0)
	keys  int // how many times the key was given
}

func (x *choiceIndex) UnmarshalJSON(b []byte) error {
	x.keys++
	if string(b) == "null" {
		return nil
	}
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("choice index %.40s: want an integer", b)
	}
	if v != 0 {
		x.other = v
	}
	return nil
}

// decodeJSON decodes data with go-json into cs, for what scanChunk gives
// up on: it returns the problem with a chunk that is not a content or
// usage chunk, and writes the text to keep (if keep is not nil). n is the
// chunk's place among the stream's data events (from 1), as in the raw
// body; valid says data is already known to be strictly valid JSON
// (scanChunk took it).
func decodeJSON(data []byte, cs *chunkScan, n int, keep *strings.Builder, valid bool) (problem string) {
	var ch wireChunk
	// goccy/go-json: ~3× less CPU per chunk, but it skips an unknown key's
	// value unchecked ({"id":01}); json.Valid keeps such a chunk undecodable.
	if err := gojson.Unmarshal(data, &ch); err != nil || !valid && !json.Valid(data) {
		// An error the APIError type cannot hold is still the server's
		// error: TGI sends {"error": "...", "error_type": "..."}.
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 && string(e.Error) != "null" {
			if msg := streamErrorMessage(data); msg != "" {
				return KindStreamError + ": " + msg
			}
			return KindStreamError + ": " + clip(data) // no text: the chunk is all the server said
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return KindBadStream + ": chunk " + strconv.Itoa(n) + " is a data event with empty data"
		}
		return KindBadStream + ": undecodable chunk " + strconv.Itoa(n) + ": " + clip(data)
	}
	switch {
	case ch.Error != nil && ch.Error.Message != "":
		problem = KindStreamError + ": " + clip([]byte(ch.Error.Message))
		if ch.Error.Type != "" {
			problem += " (" + clip([]byte(ch.Error.Type)) + ")" // the server's text too
		}
		return problem
	case ch.Object == "error" && ch.Message != "":
		return KindStreamError + ": " + clip([]byte(ch.Message))
	case ch.Error != nil || ch.Object == "error":
		// No message: the object itself is all the server said.
		return KindStreamError + ": " + clip(data)
	}
	*cs = chunkScan{choices: len(ch.Choices), filtered: len(ch.PromptFilterResults) > 0 && string(ch.PromptFilterResults) != "null"}
	if u := ch.Usage; u != nil {
		cs.usage, cs.hasUsage = u.Usage, true
		if u.Prompt != nil {
			cs.usage.PromptTokens = *u.Prompt
		} else {
			cs.noPrompt = true
		}
		if u.Output != nil {
			cs.usage.CompletionTokens = *u.Output
		} else {
			cs.noOutput = true
		}
		if d := u.Details; d != nil && d.Cached != nil {
			cs.cached = true
			cs.usage.PromptTokensDetails = &openai.PromptTokensDetails{CachedTokens: *d.Cached}
		}
	}
	for i := range ch.Choices {
		cp := &ch.Choices[i]
		cs.text += len(cp.Delta.Content) + len(cp.Delta.ReasoningContent) + len(cp.Delta.Reasoning) + len(cp.Text)
		if keep != nil {
			keepText(keep, cp.Delta.ReasoningContent)
			keepText(keep, cp.Delta.Reasoning)
			keepText(keep, cp.Delta.Content)
			keepText(keep, cp.Text)
		}
		if f := sse.LaterFinish(string(cs.finish), cp.FinishReason); f != string(cs.finish) {
			cs.finish = []byte(f)
		}
		if cp.Index.other != 0 {
			cs.index = cp.Index.other
		}
		cs.repeatedIndex = cs.repeatedIndex || cp.Index.keys > 1
	}
	return ""
}

// choiceProblem describes a chunk with choices other than the one a
// request asks for (n is 1), or returns "": counting them would add
// another answer's tokens and text to this one's. n is the chunk's place.
func choiceProblem(cs *chunkScan, n int) string {
	switch {
	case cs.choices > 1:
		return fmt.Sprintf("%s: chunk %d has %d choices, where one was asked for", KindBadStream, n, cs.choices)
	case cs.repeatedIndex:
		return fmt.Sprintf("%s: chunk %d has a choice whose index is given twice", KindBadStream, n)
	case cs.index != 0:
		return fmt.Sprintf("%s: chunk %d has a choice of index %d, where only index 0 was asked for", KindBadStream, n, cs.index)
	}
	return ""
}

// maxTextBytes bounds the generated text kept (KeepText), as maxRawBytes
// bounds a raw body: a server streaming huge content chunks within the
// chunk bound would grow it until the timeout. A full-length answer of
// 128k tokens, at 32 bytes a token, stays under it. A variable for tests.
var maxTextBytes = 4 << 20

// keepText adds s to the kept text, up to maxTextBytes in all and never
// splitting a character at the cut.
func keepText(b *strings.Builder, s string) {
	b.WriteString(textcut.Head(s, max(0, maxTextBytes-b.Len())))
}

// keptText is a row's OutputText: the text kept, valid UTF-8, and where it
// was cut when the stream carried more (streamed bytes, decoded).
func keptText(kept string, streamed int) string {
	text := strings.ToValidUTF8(kept, "\uFFFD")
	if streamed <= len(kept) {
		return text
	}
	return fmt.Sprintf("%s"+cutMarkFormat, text, len(kept), streamed)
}

// chunkBytes is the decoded text the content chunks carried, kept or not.
func chunkBytes(chunks []tokentime.Chunk) int {
	n := 0
	for _, c := range chunks {
		n += int(c.Bytes)
	}
	return n
}

// cutMarkFormat ends a kept text that was cut (keptText).
const cutMarkFormat = "… [servesim: output text cut at %d of %d bytes]"

// cutMark matches cutMarkFormat at the end of a text.
var cutMark = regexp.MustCompile(`… \[servesim: output text cut at \d+ of \d+ bytes\]$`)

// TextCut reports whether a row's OutputText is cut at the bound on the
// text kept: it is the answer's head, not the whole answer.
func TextCut(text string) bool { return cutMark.MatchString(text) }

// runningCount is the chunk's cumulative completion tokens for timing
// them, -1 where it carried none. A count out of range (negative or past
// int32) is none too, not one wrapped into range: the chunks are then
// timed by text, as the recording proxy times them. Only the final usage
// judges the row.
func runningCount(cs *chunkScan) int32 {
	if !cs.hasUsage || cs.noOutput || cs.usage.CompletionTokens < 0 || cs.usage.CompletionTokens > math.MaxInt32 {
		return -1
	}
	return int32(cs.usage.CompletionTokens)
}

// readChunk reads data, the stream's n-th data event, into cs and returns
// the problem with it ("" if none); keep, if not nil, gets its text.
// The scanner runs first even when the text is kept: a chunk it takes is
// strictly valid JSON, so go-json decodes the text without json.Valid's
// second pass over the chunk.
func readChunk(data []byte, cs *chunkScan, n int, keep *strings.Builder) string {
	scanned := scanChunk(data, cs)
	if scanned && keep == nil {
		return ""
	}
	return decodeJSON(data, cs, n, keep, scanned)
}

// maxContentChunks is the most content chunks a stream for maxTokens may
// carry: each carries a token, though an engine may split a multi-byte
// character across chunks, so twice that and some. A server streaming
// past it would otherwise grow the chunk list until the timeout.
func maxContentChunks(maxTokens int) int { return 2*maxTokens + 64 }

// maxDataEvents is the most data events a stream for maxTokens may carry:
// twice the content chunks allowed, for chunks without content (the role
// chunk, the finish chunk, the usage chunk, or an engine's empty deltas),
// and some. A server streaming events without content would otherwise
// hold the request until the timeout. SSE comment lines are no events
// and stay unbounded: keep-alives may come for as long as a request waits.
func maxDataEvents(maxTokens int) int { return 4*maxTokens + 256 }

// stamper timestamps every read of the response body: each event is
// stamped with the read that completed it.
type stamper struct {
	r    io.Reader
	last time.Time
	n    int           // bytes read
	raw  *bytes.Buffer // --save-raw: the body's first maxRawBytes
}

func (s *stamper) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.last = time.Now()
	s.n += n
	if s.raw != nil && n > 0 {
		s.raw.Write(p[:max(0, min(n, maxRawBytes-s.raw.Len()))])
	}
	return n, err
}

// rawCut says, as an SSE comment after a line end, where a saved raw body
// was cut ("" if it was not): one read past the cut shows in s.n. saved
// is the length written above the note: masking secrets changes it, and
// a reader counting the file's bytes must not take the cut for a
// mismatch.
func (s *stamper) rawCut(saved int) string {
	if s.raw == nil || s.n <= s.raw.Len() {
		return ""
	}
	note := fmt.Sprintf("\n\n: servesim: raw body cut at %d bytes of the %d read", s.raw.Len(), s.n)
	if saved != s.raw.Len() {
		note += fmt.Sprintf("; %d bytes saved above, secrets masked", saved)
	}
	return note + "\n"
}

// maxRawBytes bounds a raw body saved (SaveRaw): a server that streams
// without end would grow it until the timeout. A full-length stream of
// 128k tokens, a few hundred bytes a chunk, stays under it. A variable
// for tests.
var maxRawBytes = 64 << 20

// stream holds per-request buffers, pooled.
type stream struct {
	st     stamper
	buf    []byte // what one read of the body gets
	split  sse.Splitter
	chunks []tokentime.Chunk
	text   strings.Builder
	raw    bytes.Buffer
	head   []byte // the body's first bytes, to show a body that held no event
	scan   chunkScan
	usage  openai.Usage
}

// maxHead is how much of a body's start is kept to show one that held no
// event, as much as a failed status's body shows.
const maxHead = 4096

// The line cap makes a stream that never ends a line fail as bad_stream
// instead of growing memory until the timeout.
var streamPool = sync.Pool{New: func() any {
	return &stream{buf: make([]byte, 4096), split: sse.Splitter{MaxLine: sse.DefaultMaxLine}}
}}

// call is a request built ahead of its send time, so that sending it
// then costs only the hand-over to net/http: building it (URL, headers,
// context) on a cold cache took tens of µs of schedule lag.
type call struct {
	req    *http.Request
	ctx    context.Context // the request's: the run's, with the timeout
	cancel context.CancelFunc
	err    error // why the request could not be built
}

// prepare builds the call for body, to be sent at due, or at once when due
// has passed (a run behind schedule): the timeout runs from then, the send.
func (c *client) prepare(ctx context.Context, due time.Time, body []byte) *call {
	from := due
	if now := time.Now(); now.After(due) {
		from = now
	}
	rctx, cancel := context.WithDeadline(ctx, from.Add(c.cfg.Timeout))
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return &call{ctx: rctx, cancel: cancel, err: err}
	}
	req.GetBody = nil // no transparent resend on a dead keep-alive connection: no retries while measuring
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	return &call{req: req, ctx: rctx, cancel: cancel}
}

// do sends body for row r (idx-th of the run) now; see send.
func (c *client) do(ctx context.Context, start time.Time, idx int, r *traces.Request, body []byte) {
	c.send(ctx, start, idx, r, c.prepare(ctx, time.Now(), body))
}

// send sends the call prepared for row r (idx-th of the run) and fills
// r's observed columns. start is the run's time origin; r.ScheduledSend is
// already set. It never retries.
func (c *client) send(ctx context.Context, start time.Time, idx int, r *traces.Request, cl *call) {
	defer cl.cancel()
	s := streamPool.Get().(*stream)
	defer func() {
		s.chunks = s.chunks[:0]
		s.split.Reset()
		s.text.Reset()
		s.raw.Reset()
		if s.raw.Cap() > 1<<20 {
			s.raw = bytes.Buffer{} // a long body's buffer is not kept for every later request
		}
		s.head = s.head[:0]
		s.st = stamper{}
		streamPool.Put(s)
	}()
	fail := func(status int, msg string) {
		clearMeasured(r)
		if r.ActualSend != traces.Missing {
			// Not a latency: until when it may have run in the engine.
			r.FailTime = int64(time.Since(start))
		}
		if status > 0 {
			r.HTTPStatus = int32(status)
		}
		// go-json keeps invalid UTF-8 in the strings it decodes (a
		// server's error message), and a trace holds only valid text.
		r.Error = c.redactError(strings.ToValidUTF8(msg, "\uFFFD"))
	}
	if cl.err != nil {
		fail(0, KindClient+": "+cl.err.Error())
		return
	}
	req, rctx := cl.req, cl.ctx
	r.ActualSend = int64(time.Since(start))
	resp, err := c.hc.Do(req)
	if err != nil {
		fail(0, c.sendError(ctx, rctx, err))
		return
	}
	defer resp.Body.Close()
	if c.rawDir != "" {
		defer func() { c.saveRaw(idx, r, s.raw.Bytes(), s.st.rawCut) }()
	}
	if resp.StatusCode != http.StatusOK {
		msg, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
		s.raw.Write(msg)
		fail(resp.StatusCode, c.statusError(resp.StatusCode, msg, resp.Header.Get("Location"), c.bodyCut(ctx, rctx, err)))
		return
	}
	r.HTTPStatus = http.StatusOK

	s.st = stamper{r: resp.Body, last: time.Now()}
	if c.rawDir != "" {
		s.st.raw = &s.raw
	}
	var (
		usage    *openai.Usage
		cached   bool // usage reported cached tokens
		noPrompt bool // usage had no prompt_tokens
		noOutput bool // usage had no completion_tokens
		keptTo   *strings.Builder
		finish   string
		done     bool
		problem  string
		readErr  error
		// Diagnostics number chunks as the raw stream does: every data
		// event counts, the role-only first chunk and usage chunks too,
		// whereas s.chunks holds only content chunks.
		events int
	)
	if c.cfg.KeepText {
		keptTo = &s.text
	}
	sent := c.sentMaxTokens(int(r.OutputTokens))
	chunkCap := maxContentChunks(sent)
	eventCap := maxDataEvents(sent)
	// emit takes one event; false ends the stream's reading.
	emit := func(event, data []byte) bool {
		at := int64(s.st.last.Sub(start))
		if string(event) == "error" {
			problem = KindStreamError + ": event: error: " + streamErrorMessage(data)
			if len(bytes.TrimSpace(data)) == 0 {
				problem = KindStreamError + ": event: error with empty data"
			}
			return false
		}
		if sse.IsDone(data) {
			done = true
			return false
		}
		if events == eventCap {
			problem = fmt.Sprintf("%s: more than %d data events for max_tokens %d: the server streams past what max_tokens allows", KindBadStream, eventCap, sent)
			return false
		}
		events++
		cs := &s.scan
		if problem = readChunk(data, cs, events, keptTo); problem != "" {
			return false
		}
		if problem = choiceProblem(cs, events); problem != "" {
			return false
		}
		if cs.hasUsage {
			s.usage, usage, cached, noPrompt, noOutput = cs.usage, &s.usage, cs.cached, cs.noPrompt, cs.noOutput // with continuous usage stats every chunk carries it
		}
		if cs.choices == 0 {
			if !cs.hasUsage && !cs.filtered {
				// The chunk itself is shown: it may be the server's message
				// in a shape of its own ({"detail": ...}).
				problem = KindEmptyChoices + ": chunk " + strconv.Itoa(events) + " has empty choices and no usage: " + clip(data)
			}
			return problem == ""
		}
		if f := sse.LaterFinish(finish, string(cs.finish)); f != finish {
			finish = f
		}
		if cs.text > 0 {
			if len(s.chunks) == chunkCap {
				problem = fmt.Sprintf("%s: more than %d content chunks for max_tokens %d: the server streams past max_tokens", KindBadStream, chunkCap, sent)
				return false
			}
			s.chunks = append(s.chunks, tokentime.Chunk{At: at, Bytes: int32(cs.text), Cum: runningCount(cs)})
		}
		return true
	}
	for !done && problem == "" {
		n, err := s.st.Read(s.buf)
		if n > 0 {
			s.split.Feed(s.buf[:n], emit)
			// Only a body without events shows its start: a stream's
			// first read usually holds one, and copies nothing.
			if events == 0 {
				s.head = append(s.head, s.buf[:min(n, maxHead-len(s.head))]...)
			}
		}
		if err == io.EOF && !done && problem == "" {
			// Lenient on a clean end only: a last event without its
			// blank line. A line cut by a timeout or reset is no event.
			s.split.End(emit)
		}
		// A dropped line lost its chunk, even when [DONE] came after it.
		if s.split.Dropped > 0 && problem == "" {
			problem = fmt.Sprintf("%s: an SSE line over %d bytes", KindBadStream, sse.DefaultMaxLine)
		}
		if err != nil {
			readErr = err
			break
		}
	}
	if problem != "" {
		fail(resp.StatusCode, problem)
		return
	}
	if !done {
		msg := c.streamEndError(ctx, rctx, readErr, len(s.chunks))
		if events == 0 && len(s.head) > 0 {
			// Not a stream at all (a server that ignored stream: true, or
			// an error sent as 200): show what came instead, also when a
			// timeout, reset or interrupt ended it rather than its end.
			noEvent := fmt.Sprintf("the body held no SSE data event (Content-Type %q): %s",
				resp.Header.Get("Content-Type"), errorMessage(s.head))
			if readErr == io.EOF {
				msg = KindNoDone + ": " + noEvent
			} else {
				msg += "; " + noEvent
			}
		}
		fail(resp.StatusCode, msg)
		return
	}
	streamed := s.st.n
	// Let the connection go back to the pool: read what follows [DONE]
	// (the chunked terminator), but never wait long for it.
	stop := time.AfterFunc(50*time.Millisecond, cl.cancel)
	for n := 0; n < 64<<10; {
		m, err := s.st.Read(s.buf)
		if err != nil {
			break
		}
		n += m
	}
	stop.Stop()
	if sse.EngineAborted(finish) {
		fail(resp.StatusCode, fmt.Sprintf("%s: finish_reason %q: the engine ended the request early after %d content chunks", KindStreamError, clip([]byte(finish)), len(s.chunks)))
		return
	}
	if usage == nil {
		fail(resp.StatusCode, KindNoUsage+": [DONE] after "+strconv.Itoa(len(s.chunks))+" content chunks but no chunk carried usage (stream_options.include_usage unsupported?)")
		return
	}
	// Absent or null is no count, not a count of 0.
	if noOutput {
		fail(resp.StatusCode, fmt.Sprintf("%s: usage has no completion_tokens after %d content chunks", KindBadStream, len(s.chunks)))
		return
	}
	if len(s.chunks) == 0 {
		fail(resp.StatusCode, fmt.Sprintf("%s: usage reports %d completion tokens but no content arrived", KindBadStream, usage.CompletionTokens))
		return
	}
	cachedTokens := 0
	if cached {
		cachedTokens = usage.PromptTokensDetails.CachedTokens
	}
	if bad := badUsage(usage.PromptTokens, usage.CompletionTokens, cachedTokens, !noPrompt); bad != "" {
		fail(resp.StatusCode, fmt.Sprintf("%s: usage reports %s after %d content chunks", KindBadStream, bad, len(s.chunks)))
		return
	}
	// A server never generates past max_tokens: a count above it is false,
	// and recorded as the server's fault rather than clamped.
	if usage.CompletionTokens > sent {
		fail(resp.StatusCode, fmt.Sprintf("%s: usage reports completion_tokens = %d, above the max_tokens %d sent, after %d content chunks",
			KindBadStream, usage.CompletionTokens, sent, len(s.chunks)))
		return
	}
	r.UsagePrompt = int32(usage.PromptTokens)
	if noPrompt {
		r.UsagePrompt = traces.Missing // not measured, as no usage at all would be
	}
	r.UsageOutput = int32(usage.CompletionTokens)
	if cached {
		r.UsageCached = int32(cachedTokens)
	}
	r.Chunks = int32(len(s.chunks))
	r.FirstToken = s.chunks[0].At
	r.LastToken = s.chunks[len(s.chunks)-1].At
	// More tokens than the stream had bytes were not all streamed (hidden
	// reasoning, or a false count): their times were never seen, and the
	// count alone must not size memory.
	if usage.CompletionTokens <= streamed {
		r.TokenTimes = tokentime.Spread(make([]int64, 0, usage.CompletionTokens), s.chunks, usage.CompletionTokens)
	}
	// Valid UTF-8, as a trace's strings must be: go-json keeps invalid
	// bytes (a tokenizer's half rune) as they came. The text is fixed
	// whole, so a rune split across chunks stays one.
	r.FinishReason = strings.ToValidUTF8(finish, "\uFFFD")
	if c.cfg.KeepText {
		r.OutputText = keptText(s.text.String(), chunkBytes(s.chunks))
	}
}

// badUsage describes a usage count no request that streamed content can
// have (negative, past int32, no completion tokens, or more cached tokens
// than prompt tokens when the prompt was counted), or returns "".
func badUsage(prompt, completion, cached int, promptCounted bool) string {
	for _, f := range []struct {
		name string
		v    int
	}{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"cached_tokens", cached}} {
		if f.v < 0 || f.v > math.MaxInt32 {
			return fmt.Sprintf("%s = %d", f.name, f.v)
		}
	}
	if completion == 0 {
		return "completion_tokens = 0"
	}
	// Cached tokens are a part of the prompt: more would make a prefix-hit
	// rate above 1.
	if promptCounted && cached > prompt {
		return fmt.Sprintf("cached_tokens = %d, above prompt_tokens = %d", cached, prompt)
	}
	return ""
}

// clearMeasured empties every measurement of a failed request; schedule,
// send time, status and error stay.
func clearMeasured(r *traces.Request) {
	r.StartTime, r.FirstToken, r.LastToken, r.TokenTimes = traces.Missing, traces.Missing, traces.Missing, nil
	r.UsagePrompt, r.UsageOutput, r.UsageCached = traces.Missing, traces.Missing, traces.Missing
	r.Chunks, r.Preemptions = traces.Missing, traces.Missing
	r.FinishReason, r.OutputText = "", ""
}

// sendError describes a failure before any response arrived.
func (c *client) sendError(ctx, rctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return KindCanceled + ": " + stopped(ctx) + " before the response"
	case rctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf("%s: no response headers within %v from POST %s", KindTimeout, c.cfg.Timeout, c.shown)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("%s: connection refused by %s (is the server running and the port right?)", KindConnection, hostOf(c.url))
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("%s: connection reset by %s before the response", KindConnection, hostOf(c.url))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s: %s closed the connection before responding", KindConnection, hostOf(c.url))
	}
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	err = urlshow.Error(err, c.shown) // it quoted the URL's query
	if errors.As(err, &oe) || errors.As(err, &de) || errors.As(err, &ne) {
		return KindConnection + ": " + oneLine(err.Error())
	}
	return KindClient + ": " + oneLine(err.Error())
}

// stopped says why the run's context ended: an interrupt, or the run
// stopping itself for a cause (a write error), which is named.
func stopped(ctx context.Context) string {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return "run interrupted"
	}
	return "run stopped (" + oneLine(cause.Error()) + ")"
}

// streamEndError describes a stream that stopped before [DONE].
func (c *client) streamEndError(ctx, rctx context.Context, err error, chunks int) string {
	after := " after " + strconv.Itoa(chunks) + " content chunks"
	switch {
	case ctx.Err() != nil:
		return KindCanceled + ": " + stopped(ctx) + " mid-stream" + after
	case rctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf("%s: stream not finished within %v%s", KindTimeout, c.cfg.Timeout, after)
	case err == io.EOF:
		return KindNoDone + ": stream ended without data: [DONE]" + after
	case errors.Is(err, syscall.ECONNRESET):
		return KindConnection + ": connection reset mid-stream" + after
	case errors.Is(err, io.ErrUnexpectedEOF):
		return KindConnection + ": connection closed mid-stream (truncated HTTP body)" + after
	}
	return KindConnection + ": reading the stream: " + oneLine(err.Error()) + after
}

// bodyCut says why reading a non-200 response's body stopped before its
// end (err), or returns "" if it did not: what arrived of it is then not
// all the server said.
func (c *client) bodyCut(ctx, rctx context.Context, err error) string {
	switch {
	case err == nil:
		return ""
	case ctx.Err() != nil:
		return " (body cut short: " + stopped(ctx) + ")"
	case rctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf(" (body cut short by the %v timeout)", c.cfg.Timeout)
	}
	return " (body cut short: " + oneLine(err.Error()) + ")"
}

// statusError describes a non-200 response, with hints for 401 and 404
// and a redirect's Location; cut is bodyCut's note, added after the body.
func (c *client) statusError(code int, body []byte, location, cut string) string {
	msg := errorMessage(body)
	head := fmt.Sprintf("HTTP %d from POST %s", code, c.shown)
	if code >= 300 && code < 400 && location != "" {
		head += " (redirects to " + clip([]byte(c.redact(location))) + ")"
	} else if msg != "" {
		head += ": " + msg
	}
	head += cut
	// A hint follows after "; ": a message's own full stop would read ".;".
	hinted := strings.TrimSuffix(head, ".")
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Sprintf("%s: %s; API key read from $%s: %s", KindAuth, hinted, c.cfg.APIKeyEnv, c.keyState)
	case code == http.StatusNotFound:
		if hint := baseURLHint(c.cfg.BaseURL); hint != "" {
			return KindNotFound + ": " + hinted + hint
		}
		return KindNotFound + ": " + head
	case code == http.StatusTooManyRequests:
		return KindRateLimited + ": " + head
	case code >= 500:
		return KindServer + ": " + head
	}
	return KindHTTP + ": " + head
}

// baseURLHint spots the usual base-URL mistakes behind a 404.
func baseURLHint(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	p, base := strings.TrimRight(u.Path, "/"), urlshow.URL(u)
	fix := func(path string) string { v := *u; v.Path = path; return urlshow.URL(&v) }
	// Read without case, as users type it: "/V1" is no missing /v1 to
	// append, but a segment the server's case-sensitive paths miss.
	lp := lowerASCII(p)
	switch {
	case strings.Contains(lp+"/", "/v1/v1/"):
		i := strings.Index(lp, "/v1/v1")
		return fmt.Sprintf("; the base URL %s has a doubled /v1; try %s", base, fix(p[:i]+"/v1"+p[i+len("/v1/v1"):]))
	case strings.HasSuffix(lp, "/completions"), strings.HasSuffix(lp, "/chat"): // /chat: then /chat/chat/completions
		return fmt.Sprintf("; the base URL %s already ends in an endpoint path; give only the API root, e.g. %s", base,
			fix(trimSuffixFold(trimSuffixFold(p, "/completions"), "/chat")))
	case !strings.Contains(lp+"/", "/v1/"):
		return fmt.Sprintf("; the base URL %s has no /v1; OpenAI-compatible servers usually want %s", base, fix(p+"/v1"))
	case !strings.Contains(p+"/", "/v1/"):
		i := strings.Index(lp+"/", "/v1/")
		return fmt.Sprintf("; the base URL %s has %s, and paths are case-sensitive; try %s", base, p[i:i+len("/v1")], fix(p[:i]+"/v1"+p[i+len("/v1"):]))
	}
	return ""
}

// trimSuffixFold is strings.TrimSuffix for a lower-case ASCII suffix,
// matched without case.
func trimSuffixFold(s, suffix string) string {
	if strings.HasSuffix(lowerASCII(s), suffix) {
		return s[:len(s)-len(suffix)]
	}
	return s
}

// lowerASCII lower-cases s's ASCII letters only, keeping its length: its
// indexes are s's (strings.ToLower can change a non-ASCII rune's length).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// errorMessage pulls a message out of an error body (OpenAI, vLLM or
// FastAPI shapes), else returns the text clipped.
func errorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil {
		var api openai.APIError
		var s string
		switch {
		case len(e.Error) > 0 && json.Unmarshal(e.Error, &api) == nil && api.Message != "":
			return oneLine(api.Message)
		case len(e.Error) > 0 && json.Unmarshal(e.Error, &s) == nil:
			return oneLine(s)
		case e.Message != "":
			return oneLine(e.Message)
		case e.Detail != nil:
			return oneLine(fmt.Sprint(e.Detail))
		}
	}
	return clip(body)
}

// streamErrorMessage is errorMessage for an error a stream carried, cut
// as clip cuts: unlike a response body, read only to 4 KiB, a stream's
// data may run to the 8 MiB of an SSE line.
func streamErrorMessage(data []byte) string {
	return clip([]byte(errorMessage(data)))
}

// redact masks every secret in s, and the start of one that a cut (clip's
// "…") left only in part, where no whole secret is there to mask.
func (c *client) redact(s string) string {
	s = c.secrets.String(s)
	if strings.Contains(s, "…") {
		parts := strings.Split(s, "…")
		for i := range parts[:len(parts)-1] {
			parts[i] = string(c.secrets.CutEnd([]byte(parts[i])))
		}
		s = strings.Join(parts, "…")
	}
	return s
}

// redactError is redact on a failure's "<kind>: <detail>", masking the
// detail only: the kind is one of ours, and a secret that happens to be
// part of its name (a URL user "server") would otherwise change the kind
// the summary counts.
func (c *client) redactError(msg string) string {
	if kind, detail, ok := strings.Cut(msg, ": "); ok {
		return kind + ": " + c.redact(detail)
	}
	return c.redact(msg)
}

// saveRaw saves a response's raw body, secrets masked, with cut's note
// (where it was cut, if it was, given the length saved) after it.
func (c *client) saveRaw(idx int, r *traces.Request, raw []byte, cut func(saved int) string) {
	raw = c.secrets.Bytes(raw)
	// Reading stops short of the body's end (an error body's first 4 KiB,
	// a stream that failed, the maxRawBytes kept): a secret there may be cut.
	raw = c.secrets.CutEnd(raw)
	raw = append(raw, cut(len(raw))...)
	name := fmt.Sprintf("%06d_%s.sse", idx, safeName(r.ID))
	// Best effort: raw bodies are diagnostics, so a failure is counted
	// for the summary and the run goes on.
	if err := atomicfile.WriteFileUnsynced(filepath.Join(c.rawDir, name), raw); err != nil {
		c.rawFailed.Add(1)
		c.rawFirstErr.CompareAndSwap(nil, &err)
	}
}

func safeName(s string) string {
	b := []byte(s)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Host
	}
	return u
}

// clip makes b valid UTF-8, as trace strings must be (an error page in
// another charset is not), and cuts it to its first 200 bytes on a rune
// boundary, marked with "…" (so at most 203 bytes in all).
func clip(b []byte) string {
	const limit = 200
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > limit {
		s = textcut.Head(s, limit) + "…"
	}
	return oneLine(s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
