package proxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/numfmt"
	credential "github.com/servesim/servesim/internal/secret"
	"github.com/servesim/servesim/internal/urlport"
	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/replay/sse"
	"github.com/servesim/servesim/replay/tokentime"
	"github.com/servesim/servesim/traces"
)

// Config configures a recording proxy. Start from DefaultConfig.
type Config struct {
	Upstream       string        // the engine's base URL; request paths are appended to its path
	Out            string        // the trace file; its extension picks the format
	BlockSize      int           // tokens per prefix-hash block (Meta.BlockSize)
	SessionHeader  string        // request header holding the session id; "" = none
	ClassHeader    string        // request header holding the class; "" or absent = the body's "model"
	KeepPrompts    bool          // also write the prompts to PromptsPath(Out)
	TokensPerByte  float64       // the estimate of tokens per prompt/output byte when there is no usage
	FlushInterval  time.Duration // how often rows written so far are made durable (≤ 1 s)
	ShutdownGrace  time.Duration // Serve: how long in-flight requests may run on after ctx ends
	MaxRequestBody int64         // a larger request body is refused (413), recorded as failed: each is held whole
	BodyTimeout    time.Duration // a request body not received within it is refused (408), recorded as failed: else a stalled client holds its handler open
	Meta           traces.Meta   // the trace's metadata; the proxy adds Source, BlockSize and Extra["proxy.*"]
	Transport      http.RoundTripper
	Logger         *slog.Logger
}

// DefaultConfig returns the defaults: 512-token blocks, X-Session-Id,
// 0.25 tokens per byte, flushing every second, a 30 s shutdown grace and
// request bodies up to 256 MiB (far past any prompt, images included),
// each to be received within a minute.
func DefaultConfig() Config {
	return Config{
		BlockSize:      512,
		SessionHeader:  "X-Session-Id",
		TokensPerByte:  0.25,
		FlushInterval:  time.Second,
		ShutdownGrace:  30 * time.Second,
		MaxRequestBody: 256 << 20,
		BodyTimeout:    time.Minute,
	}
}

// Validate reports the first bad field, as a *traces.FieldError naming it.
func (c *Config) Validate() error {
	bad := func(field, format string, a ...any) error {
		return &traces.FieldError{Struct: "proxy: Config", Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	u, err := url.Parse(c.Upstream)
	switch {
	case c.Upstream == "":
		return bad("Upstream", "required")
	case err != nil:
		// The parse error would quote the URL, password and all.
		return bad("Upstream", "does not parse: want http(s)://host[:port][/path]")
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return bad("Upstream", "%q: want http(s)://host[:port][/path]", urlshow.URL(u))
	case !urlport.InRange(u):
		return bad("Upstream", "%q: port %s out of range: want 1 to 65535", urlshow.URL(u), u.Port())
	case strings.Contains(u.EscapedPath(), "@"):
		// user:token@host with a '/' in the token: the host read is the
		// token's start, which a failed lookup would print. An
		// escaped '@' (%40) is a path character, as urlshow shows it.
		return bad("Upstream", "has an '@' in its path: credentials typed in the URL? (not shown)")
	case c.Out == "":
		return bad("Out", "required")
	case c.BlockSize <= 0 || c.BlockSize > traces.MaxBlockSize:
		// A block past any prompt never fills: no two rows would share a hash.
		return bad("BlockSize", "must be in (0, %d], got %d", traces.MaxBlockSize, c.BlockSize)
	case !(c.TokensPerByte > 0 && c.TokensPerByte <= 4):
		return bad("TokensPerByte", "must be in (0, 4], got %v", c.TokensPerByte)
	case c.FlushInterval <= 0 || c.FlushInterval > time.Second:
		// A kill loses the rows finished since the last flush: at most
		// about a second of them, as record promises.
		return bad("FlushInterval", "must be in (0, 1s], got %v", c.FlushInterval)
	case c.ShutdownGrace < 0:
		return bad("ShutdownGrace", "must be ≥ 0, got %v", c.ShutdownGrace)
	case c.MaxRequestBody <= 0:
		return bad("MaxRequestBody", "must be > 0, got %d", c.MaxRequestBody)
	case c.BodyTimeout <= 0:
		return bad("BodyTimeout", "must be > 0, got %v", c.BodyTimeout)
	case c.SessionHeader != "" && !validHeaderName(c.SessionHeader):
		// No request carries it: every session would be silently empty.
		return bad("SessionHeader", "%q is not a header name: want letters, digits and !#$%%&'*+-.^_`|~, no spaces or colon", c.SessionHeader)
	case c.ClassHeader != "" && !validHeaderName(c.ClassHeader):
		return bad("ClassHeader", "%q is not a header name: want letters, digits and !#$%%&'*+-.^_`|~, no spaces or colon", c.ClassHeader)
	case credentialHeader(c.SessionHeader):
		// Its value, a key, would be written to every row.
		return bad("SessionHeader", "%q carries credentials, which are never written to a trace: want a header without them", c.SessionHeader)
	case credentialHeader(c.ClassHeader):
		return bad("ClassHeader", "%q carries credentials, which are never written to a trace: want a header without them", c.ClassHeader)
	}
	if _, err := traces.FormatOf(c.Out); err != nil {
		return bad("Out", "%v", err)
	}
	// Else the session fails only once it starts, naming its staging file.
	if err := atomicfile.CheckDir(c.Out); err != nil {
		return bad("Out", "%v", err)
	}
	return nil
}

// validHeaderName reports whether s is an HTTP header field name (an RFC
// 9110 token), as a server accepts in a request.
func validHeaderName(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// keyHeaders are the request headers that carry an API key: OpenAI's and
// most servers' Authorization, Azure OpenAI's api-key, Anthropic's and
// others' x-api-key, Google's x-goog-api-key and Azure API Management's
// subscription key.
var keyHeaders = []string{"Authorization", "Api-Key", "X-Api-Key", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key"}

// credentialHeader reports whether a request header named name carries
// credentials.
func credentialHeader(name string) bool {
	for _, h := range append([]string{"Proxy-Authorization", "Cookie"}, keyHeaders...) {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// PromptsPath is where KeepPrompts writes prompts: "run.parquet" →
// "run.prompts.jsonl".
func PromptsPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".prompts.jsonl"
}

// promptsFile is where KeepPrompts appends prompts (an *atomicfile.File):
// a temporary file that Close publishes at PromptsPath with the trace.
type promptsFile interface {
	io.Writer
	Sync() error
	Name() string
	Close() error
	Commit() error
	Abort()
}

// stagingPath is the Arrow stream the rows go to while the proxy runs,
// when Out is in another format.
func stagingPath(out string) string { return out + traces.PartialSuffix }

// CheckStaging refuses an out whose staging stream exists: it was left by
// a session whose trace was never written and holds that session's rows.
// New checks it too; a caller checks first to refuse before it listens.
func CheckStaging(out string) error {
	path := stagingPath(out)
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("proxy: %s exists, left by an earlier session whose trace was not written (servesim trace convert reads back its rows); move it away or delete it first%s", path, atomicfile.TempLinksNote(path))
	}
	return nil
}

// Proxy is an http.Handler that forwards everything to the upstream
// unchanged and records each /v1/chat/completions and /v1/completions
// request as a trace row. Close it once the server has stopped.
type Proxy struct {
	cfg             Config
	upstream        *url.URL
	upSecrets       []string // the upstream URL's user, password, query and basic credential: masked in a row's Error
	rp              *httputil.ReverseProxy
	ownUp           *http.Transport // the upstream transport New made (nil when Config gave one): Close closes its idle connections
	start           time.Time
	inflight        sync.WaitGroup
	cut             atomic.Bool   // Serve's grace ran out and it is closing the connections
	warnedUndecoded atomic.Bool   // a stream in an encoding not decoded was logged
	flushTick       time.Duration // how often the flush loop makes rows durable: FlushInterval
	stop            chan struct{}
	wake            chan struct{} // rows are ready: the flush loop writes them
	flusherDone     chan struct{}

	// amu guards closed and seq. It is never held across I/O, so that a
	// request is stamped and forwarded the moment it comes in, even while
	// wmu is held for a flush (an fsync, which a busy disk can make long).
	amu    sync.Mutex
	closed bool
	seq    int64

	mu    sync.Mutex
	ready []*exchange // in completion order, waiting for the writer
	stats Stats
	dirty bool
	// finished counts the rows written that were not cut at shutdown:
	// with none, the session captured nothing and Close writes no trace.
	finished int

	// wmu guards the writer, the prompts file and werr. It is held across
	// their I/O, a flush's fsync included, by the flush loop and Close
	// only: a handler queues its row in ready and wakes the loop, so that
	// a slow or stalled disk never holds up the end of a response (a
	// streamed one ends only when its handler returns).
	wmu     sync.Mutex
	w       traces.Writer
	wtmp    string // the staging stream's temporary file, hard-linked at the staging path; "" when not linked
	prompts promptsFile
	werr    error
	// unrecorded counts the rows that finished after werr and were not
	// written: the trace lacks them.
	unrecorded int
}

// exchange is one recorded request on its way through the proxy. It is
// touched only by its handler goroutine until handed to emit.
type exchange struct {
	seq         int64
	row         traces.Request
	req         apiRequest
	endpoint    string
	prompt      promptText
	obs         observation
	upErr       error
	clientGone  bool
	cut         bool     // the shutdown grace ran out and the proxy cut it short
	badReq      bool     // the request body is not the JSON expected
	internalErr string   // the proxy's own handler panicked after forwarding: the panic's value
	secrets     []string // the client's credentials (credential.New drops short ones): masked in the row's Error
}

type ctxKey struct{}

// New opens the trace and returns the proxy.
func New(cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newProxy(cfg, cfg.FlushInterval)
}

// newProxy is New for a valid cfg whose flush loop ticks every flushTick,
// which tests set past what Validate allows to leave the handlers'
// wake-ups alone to write the rows.
func newProxy(cfg Config, flushTick time.Duration) (*Proxy, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var ownUp *http.Transport
	if cfg.Transport == nil {
		ownUp = http.DefaultTransport.(*http.Transport).Clone()
		// Else Go asks for gzip on the client's behalf and unpacks it: the
		// engine would compress what the client gets uncompressed.
		ownUp.DisableCompression = true
		// Else only 2 idle connections are kept (100 in all): under
		// concurrent traffic most requests would open a new one and
		// wait for its handshake (record's client keeps as many).
		ownUp.MaxIdleConns, ownUp.MaxIdleConnsPerHost = 0, 1024
		// Under common engine keep-alives (uvicorn: 5 s), as record's
		// client: a connection the engine is closing is not reused for a
		// POST, which cannot be retried and would reach the client as 502.
		ownUp.IdleConnTimeout = 4 * time.Second
		cfg.Transport = ownUp
	}
	u, _ := url.Parse(cfg.Upstream)
	p := &Proxy{cfg: cfg, upstream: u, upSecrets: credential.URL(u), ownUp: ownUp, start: time.Now(),
		flushTick: flushTick, stop: make(chan struct{}), wake: make(chan struct{}, 1), flusherDone: make(chan struct{})}
	meta := p.meta()
	// Staged for .arrows too: Out's own temporary file is a hidden name
	// that a killed session's rows would be lost under.
	path := stagingPath(cfg.Out)
	if err := CheckStaging(cfg.Out); err != nil {
		return nil, err
	}
	w, err := traces.Create(path, meta)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.w = w
	// The staging name is a hard link to the temporary file, as record's
	// partial file is: a killed session leaves its rows under a name that
	// trace convert reads and that the next session refuses to start
	// beside.
	if tp, ok := w.(interface{ TempPath() string }); ok {
		p.linkStaging(tp.TempPath(), path)
	}
	if cfg.KeepPrompts {
		// Staged like the trace: an earlier session's file stays until
		// this one's trace is written.
		f, err := atomicfile.Create(PromptsPath(cfg.Out))
		if err != nil {
			w.Abort()
			if p.wtmp != "" {
				os.Remove(path)
			}
			return nil, fmt.Errorf("proxy: %w", err)
		}
		p.prompts = f
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:       p.rewrite,
		Transport:     &tapTransport{p: p, rt: cfg.Transport},
		FlushInterval: -1, // flush every write: SSE events reach the client as they come
		ErrorHandler:  p.errorHandler,
		ErrorLog:      slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
	go p.flushLoop()
	return p, nil
}

// linkFile names the staging file's temporary file; tests replace it to
// see a file system without hard links.
var linkFile = os.Link

// linkStaging names the trace's temporary file tmp at the staging path.
// Where it cannot (a file system without hard links) the rows go only to
// tmp, which a killed session leaves: the log names it, as record does.
func (p *Proxy) linkStaging(tmp, path string) {
	kept := path
	if err := linkFile(tmp, path); err == nil {
		p.wtmp = tmp
	} else {
		kept = tmp
		p.cfg.Logger.Warn("proxy: the staging file could not be linked: rows go to the trace's temporary file (an Arrow IPC stream) as they complete", "path", tmp, "err", err)
	}
	// The flushes make the rows durable, but not the name they are under:
	// unsynced, a machine crash may take it with the rows.
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		p.cfg.Logger.Warn("proxy: the staging file's directory was not synced: a machine crash may lose it and its rows", "path", kept, "err", err)
	}
}

func (p *Proxy) meta() traces.Meta {
	m := p.cfg.Meta.Clone()
	if m.Source == "" {
		m.Source = "proxy"
	}
	m.BlockSize = p.cfg.BlockSize
	m.Set("proxy.upstream", urlshow.URL(p.upstream))
	m.Set("proxy.start", p.start.UTC().Format(time.RFC3339Nano))
	// The staging stream is what a kill leaves: its rows must not read
	// as a finished session's. Close's conversion sets "complete".
	m.Set("proxy.status", "partial")
	m.Set("proxy.clock", "arrival_ns and every other time: ns since proxy.start (monotonic); arrival = request headers received, actual_send = forwarded upstream")
	m.Set("proxy.encodings", "a stream compressed with gzip or br is decoded as it arrives and timed as a plain one; "+
		"one in another Content-Encoding is not read: its row has no FirstToken or TokenTimes and estimated token counts")
	m.Set("proxy.tokens_per_byte", strconv.FormatFloat(p.cfg.TokensPerByte, 'g', -1, 64))
	m.Set("proxy.token_estimate", fmt.Sprintf(
		"prompt_tokens and output_tokens are the server's usage when usage_prompt/usage_output are set; "+
			"when they are null (no usage block, e.g. a stream without stream_options.include_usage) they are estimates: "+
			"ceil(bytes × %g) of the canonical prompt (exact when the client sent token ids; the raw body when it is not JSON the proxy reads) and of the generated text, "+
			"at least the number of output chunks; with no output at all, 0 for a success whose body was read and that did not finish at length, "+
			"else the most the request could generate (max_tokens times n or best_of and the prompts batched) or 0 without a cap; "+
			"a completions echo of a text prompt, or a chat echo of the last message, is no output, and that of a token-id prompt is left out as the prompt's ids once per choice",
		p.cfg.TokensPerByte))
	m.Set("proxy.prefix_hashes", fmt.Sprintf(
		"chained xxhash64 over %d-byte blocks (block_size / tokens_per_byte) of the canonical prompt "+
			"(tools, tool calls and non-text parts as compact JSON, strings escaped one way), the last block possibly short; "+
			"h0 = xxh64(8 zero bytes || block0), hi = xxh64(LE64(hi-1) || blocki); token-id prompts use 4-byte ids, block_size per block",
		blockBytes(p.cfg.BlockSize, p.cfg.TokensPerByte)))
	if p.cfg.SessionHeader != "" {
		m.Set("proxy.session_header", p.cfg.SessionHeader)
	}
	if p.cfg.ClassHeader != "" {
		m.Set("proxy.class", "header "+p.cfg.ClassHeader+", else the request's model")
	} else {
		m.Set("proxy.class", "the request's model")
	}
	return m
}

func (p *Proxy) now() int64 { return int64(time.Since(p.start)) }

// rewrite points the outbound request at the upstream and keeps every
// header the client sent, X-Forwarded-* included, and its query.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	// ReverseProxy drops the query parameters Go does not parse (a ';'
	// separator, a bad escape); the proxy reads no query, so the
	// upstream is the one to judge them.
	pr.Out.URL.RawQuery = pr.In.URL.RawQuery
	pr.SetURL(p.upstream)
	// SetURL drops the URL's userinfo: credentials given in --upstream
	// authenticate, as they would with curl, unless the client sent its own.
	if u := p.upstream.User; u != nil && pr.Out.Header.Get("Authorization") == "" {
		pw, _ := u.Password()
		pr.Out.SetBasicAuth(u.Username(), pw)
	}
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok {
			pr.Out.Header[h] = v
		}
	}
}

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if ex, _ := r.Context().Value(ctxKey{}).(*exchange); ex != nil && ex.upErr == nil && ex.obs.status == 0 {
		ex.upErr = err
	}
	if r.Context().Err() == nil {
		p.cfg.Logger.Warn("proxy: upstream request failed", "path", r.URL.Path, "err", err)
	}
	w.WriteHeader(http.StatusBadGateway)
}

// endpointOf names a recorded endpoint, or "".
func endpointOf(r *http.Request) string {
	if r.Method != http.MethodPost {
		return ""
	}
	return completionEndpoint(r.URL.Path)
}

// completionEndpoint names the completion endpoint path ends in, or "".
func completionEndpoint(path string) string {
	switch {
	case strings.HasSuffix(path, "/v1/chat/completions"):
		return "chat"
	case strings.HasSuffix(path, "/v1/completions"):
		return "completions"
	}
	return ""
}

// slashedEndpoint reports a POST to a completion endpoint's path with a
// trailing slash: OpenAI-compatible servers serve no completion there
// (those built on FastAPI redirect to the path without it, which clients
// follow; others answer 404), so it is forwarded, not recorded, and
// counted.
func slashedEndpoint(r *http.Request) bool {
	path := strings.TrimRight(r.URL.Path, "/")
	return r.Method == http.MethodPost && path != r.URL.Path && completionEndpoint(path) != ""
}

// ServeHTTP forwards r upstream and, for the completion endpoints, records
// it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep := endpointOf(r)
	if ep == "" {
		if slashedEndpoint(r) {
			p.mu.Lock()
			p.stats.NotRecorded++
			p.mu.Unlock()
		}
		p.forward(w, r)
		return
	}
	ex := p.arrive()
	if ex == nil { // closed: still forward, no longer record
		p.forward(w, r)
		return
	}
	defer p.inflight.Done()
	ex.endpoint = ep
	body, err := p.readBody(w, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		p.notForwarded(ex, fmt.Sprintf("request body not received within %v: not forwarded", p.cfg.BodyTimeout))
		http.Error(w, fmt.Sprintf("proxy: request body not received within %v", p.cfg.BodyTimeout), http.StatusRequestTimeout)
		return
	}
	if tooBig := new(http.MaxBytesError); errors.As(err, &tooBig) {
		p.notForwarded(ex, fmt.Sprintf("request body over %d bytes: not forwarded", tooBig.Limit))
		http.Error(w, fmt.Sprintf("proxy: request body over %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
		return
	}
	if err != nil {
		p.notForwarded(ex, "reading the request body: "+err.Error())
		http.Error(w, "proxy: reading the request body failed", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	// Set before describe: a panic there still ends the row, else it
	// would be missing from the trace.
	defer func() {
		v := recover()
		if v != nil {
			// Raised again once the row is queued: the server logs it.
			defer panic(v)
		}
		if v != nil && v != http.ErrAbortHandler && ex.row.ActualSend == traces.Missing {
			p.brokeBeforeForwarding(ex, v)
			return
		}
		if v != nil && v != http.ErrAbortHandler {
			ex.internalErr = fmt.Sprint(v)
		}
		// Runs on the ReverseProxy's http.ErrAbortHandler panic too (the
		// client went away or the upstream broke mid-stream).
		ex.clientGone = r.Context().Err() != nil
		p.finish(ex)
	}()
	p.describe(ex, r, body)
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ex)))
}

// brokeBeforeForwarding records a request whose handling panicked before
// it was sent upstream: what describe filled in may be partial, so the
// row keeps only its ID and arrival, as one refused.
func (p *Proxy) brokeBeforeForwarding(ex *exchange, v any) {
	id, arrival := ex.row.ID, ex.row.Arrival
	ex.row.Reset()
	ex.row.ID, ex.row.Arrival = id, arrival
	ex.req, ex.prompt, ex.obs.echo = apiRequest{}, promptText{}, nil
	msg := credential.New(slices.Concat(ex.secrets, p.upSecrets)...).String(fmt.Sprintf("proxy internal error: %v: not forwarded", v))
	ex.secrets = nil
	p.notForwarded(ex, clip(msg))
}

// readBody reads r's body whole, within BodyTimeout: the server bounds
// only the headers' read, and a body that never comes would hold the
// handler, and Close, open.
func (p *Proxy) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	bounded := rc.SetReadDeadline(time.Now().Add(p.cfg.BodyTimeout)) == nil
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, p.cfg.MaxRequestBody))
	r.Body.Close()
	if bounded {
		// The bound is the body's alone: the connection's later reads
		// (the watch for the client going away) run as long as the
		// response does.
		rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// notForwarded records a request the proxy failed before the upstream
// saw it. Its lengths are unknown (0) and nothing was served, so the row
// is source_failed as well as failed: simulate rejects it rather than
// serving a request that never ran, and --drop-failed drops it. Like the
// proxy's other failures it has no http_status, which is the upstream's.
func (p *Proxy) notForwarded(ex *exchange, msg string) {
	ex.row.Error = msg
	ex.row.SourceFailed = true
	p.emit(ex)
}

// forward passes r upstream unrecorded, its body streamed as it comes.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	// Else writing the response headers makes the server drain and close
	// the request body while the upstream transport may still read it once
	// more for its end (an engine answers once it has the JSON); that read
	// fails, and the transport closes the upstream connection, cutting the
	// response under way (golang.org/issue/40747).
	http.NewResponseController(w).EnableFullDuplex()
	// Closed here, not by the server after the handler: an upstream that
	// answered before reading the body leaves it unread, and the server's
	// own Close, reaching its end, would start reading the connection
	// beside its wait for the next request, which panics
	// (golang.org/issue/68560).
	defer r.Body.Close()
	p.rp.ServeHTTP(w, r)
}

// arrive numbers a new recorded request, or returns nil once closed.
func (p *Proxy) arrive() *exchange {
	p.amu.Lock()
	defer p.amu.Unlock()
	if p.closed {
		return nil
	}
	p.inflight.Add(1)
	ex := &exchange{seq: p.seq}
	p.seq++
	ex.row.Reset()
	ex.row.Arrival = p.now()
	ex.row.ID = strconv.FormatInt(ex.seq, 10)
	ex.obs.firstOut, ex.obs.lastOut, ex.obs.lastByte = -1, -1, -1
	return ex
}

// describe fills the input columns from the request.
func (p *Proxy) describe(ex *exchange, r *http.Request, body []byte) {
	// A compressed body is read for what it holds; it is forwarded as sent.
	if dec, err := decodeBody(body, r.Header.Get("Content-Encoding"), p.cfg.MaxRequestBody); err == nil {
		body = dec
	} else {
		p.cfg.Logger.Debug("proxy: request body not decoded", "path", r.URL.Path, "err", err)
	}
	if err := json.Unmarshal(body, &ex.req); err != nil {
		ex.badReq = true
		p.cfg.Logger.Debug("proxy: request body is not the JSON expected", "path", r.URL.Path, "err", err)
	}
	ex.prompt = renderPrompt(&ex.req)
	ex.obs.echo = newEchoStrip(&ex.req, ex.endpoint)
	if ex.badReq && ex.prompt.tokens == nil && len(ex.prompt.text) == 0 {
		// Nothing read as a prompt: the body stands for it, compacted when
		// it is JSON so that its layout does not change its hashes.
		var c bytes.Buffer
		if json.Compact(&c, body) == nil {
			ex.prompt.text = c.Bytes()
		} else {
			ex.prompt.text = body
		}
	}
	if ex.prompt.tokens != nil {
		ex.row.PrefixHashes = tokenPrefixHashes(ex.prompt.tokens, p.cfg.BlockSize)
	} else {
		ex.row.PrefixHashes = PrefixHashes(ex.prompt.text, blockBytes(p.cfg.BlockSize, p.cfg.TokensPerByte))
	}
	var creds []string
	for _, h := range keyHeaders {
		for _, v := range r.Header.Values(h) { // a header given twice carries two
			v = strings.TrimSpace(v)
			if scheme, cred, ok := strings.Cut(v, " "); ok {
				// The credential after its scheme (Bearer, Basic, …), which
				// is what a server echoes; Basic's user and password too.
				cred = strings.TrimSpace(cred)
				creds = append(creds, cred)
				if strings.EqualFold(scheme, "Basic") {
					if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
						user, pw, _ := strings.Cut(string(dec), ":")
						creds = append(creds, pw, user)
					}
				}
			}
			creds = append(creds, v)
		}
	}
	// A key may come in the query too (?key=..., ?api-key=...), which a
	// server may echo or a redirect carry on.
	creds = append(creds, credential.URL(r.URL)...)
	ex.secrets = creds
	// Header values may hold any byte above 0x7f; trace strings are UTF-8.
	if p.cfg.SessionHeader != "" {
		ex.row.SessionID = strings.ToValidUTF8(r.Header.Get(p.cfg.SessionHeader), "\uFFFD")
	}
	ex.row.Class = ex.req.Model
	if p.cfg.ClassHeader != "" {
		if v := r.Header.Get(p.cfg.ClassHeader); v != "" {
			ex.row.Class = strings.ToValidUTF8(v, "\uFFFD")
		}
	}
}

// finish fills the observed columns and hands the row to the writer.
func (p *Proxy) finish(ex *exchange) {
	o, row := &ex.obs, &ex.row
	if o.status != 0 {
		row.HTTPStatus = int32(o.status)
	}
	// A stream is over at data: [DONE], where record's client stops
	// reading: a client that hangs up there, or an upstream body that
	// breaks after it, took the whole completion.
	ended := o.eof || o.sawDone
	switch {
	case ex.internalErr != "":
		row.Error = "proxy internal error: " + ex.internalErr
	case ex.clientGone && !ended && (ex.upErr == nil || errors.Is(ex.upErr, context.Canceled)):
		row.Error = "client disconnected"
		if p.cut.Load() { // the proxy closed the connection, not the client
			row.Error = "cut at shutdown: the shutdown grace ran out"
			ex.cut = true
		}
	case ex.upErr != nil:
		row.Error = "upstream: " + ex.upErr.Error()
	case o.status != 0 && o.status != http.StatusOK:
		// A completion is a 200, as record counts one: a redirect, or a
		// 201, 204 or 206, answers none the trace can use.
		row.Error = fmt.Sprintf("HTTP %d", o.status)
		if o.errMsg != "" {
			row.Error += ": " + o.errMsg
		} else if o.location != "" {
			row.Error += ": redirects to " + o.location
		}
	case o.errMsg != "":
		row.Error = "server error in the response: " + o.errMsg
	case o.readErr != nil && !ended:
		row.Error = "upstream body: " + o.readErr.Error()
	case !ended:
		row.Error = "response not read to the end"
	case o.streamed && !o.sawDone && !o.undecoded:
		row.Error = "stream ended without data: [DONE]"
	case sse.EngineAborted(o.finish):
		row.Error = engineAbortError(o)
	case usageProblem(ex) != "":
		row.Error = badUsageError(ex)
		o.usage = nil // the size is the estimate, not a count the server got wrong
	}
	row.Error = credential.New(slices.Concat(ex.secrets, p.upSecrets)...).String(row.Error) // a server may echo a key back
	row.Error = clip(row.Error)                                                             // after the masking, which a key cut short would escape
	if o.finish != "" {
		row.FinishReason = o.finish
	}
	if ex.req.Stream && o.status == http.StatusOK {
		row.Chunks = int32(o.chunks)
	}
	if o.firstOut >= 0 {
		row.FirstToken = o.firstOut
	}
	if row.Error == "" {
		switch {
		case o.lastOut >= 0:
			row.LastToken = o.lastOut
		case o.lastByte >= 0:
			row.LastToken = o.lastByte
		}
	}
	// Tokens: the server's usage, else estimates (documented in Meta).
	if u := o.usage; u != nil {
		if u.PromptTokens != nil {
			row.UsagePrompt = clamp32(*u.PromptTokens)
		}
		if u.CompletionTokens != nil {
			row.UsageOutput = clamp32(*u.CompletionTokens)
		}
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			row.UsageCached = clamp32(*d.CachedTokens)
		}
	}
	if row.UsagePrompt != traces.Missing {
		row.PromptTokens = row.UsagePrompt
	} else if ex.prompt.tokens != nil {
		row.PromptTokens = clamp32(int64(len(ex.prompt.tokens)))
	} else {
		row.PromptTokens = clamp32(estimateTokens(len(ex.prompt.text), p.cfg.TokensPerByte))
	}
	switch {
	case row.UsageOutput != traces.Missing:
		row.OutputTokens = row.UsageOutput
	default:
		row.OutputTokens = clamp32(outputEstimate(ex, p.cfg.TokensPerByte))
	}
	// The usage tokens are timed over the chunks that carried them, as
	// record times them. More tokens than the stream had bytes were not all
	// streamed (hidden reasoning, or a false count): their times were never
	// seen, and the count alone must not size memory. An echoed prompt
	// was streamed but not generated.
	if row.UsageOutput != traces.Missing && len(o.timed) > 0 && int64(row.UsageOutput) <= o.streamBytes-o.echo.echoedBytes() {
		row.TokenTimes = tokentime.Spread(make([]int64, 0, row.UsageOutput), o.timed, int(row.UsageOutput))
	}
	if row.Error != "" {
		// A failure has empty metrics, as record writes one; the request's
		// size, taken from them where it was reported, stays.
		row.FirstToken, row.LastToken, row.TokenTimes, row.Chunks = traces.Missing, traces.Missing, nil, traces.Missing
		row.UsagePrompt, row.UsageOutput, row.UsageCached, row.FinishReason = traces.Missing, traces.Missing, traces.Missing, ""
		if row.ActualSend != traces.Missing {
			// Not a latency: until when it may have run in the engine.
			row.FailTime = p.now()
		}
	}
	// The row may wait long for an earlier arrival: keep only what writing
	// it needs, the raw prompt only for the prompts file.
	ex.prompt, ex.secrets, o.timed, o.echo = promptText{}, nil, nil, nil
	if !p.cfg.KeepPrompts {
		ex.req.Messages, ex.req.Tools, ex.req.Prompt = nil, nil, nil
	}
	p.emit(ex)
}

// outputEstimate sizes ex's output without usage: from the generated text
// and chunks seen, less an echoed token-id prompt; with none, 0 for a
// success read whole (it generated nothing), else (a failure, a body not
// read, or a finish at "length", which ran to the cap with nothing shown:
// hidden reasoning, skipped special tokens) the most the request could
// generate, or 0 with no cap.
func outputEstimate(ex *exchange, tokensPerByte float64) int64 {
	o := &ex.obs
	switch {
	case o.outBytes > 0 || o.chunks > 0:
		return max(estimateTokens(o.outBytes, tokensPerByte)-ex.echoedTokens(), int64(o.chunks), 0)
	case ex.row.Error == "" && !o.parseFailed && o.finish != "length":
		return 0
	}
	return max(ex.req.generationCap(ex.endpoint), 0)
}

// engineAbortError describes a response the engine ended early, in the
// terms record's client uses: the finish_reason and, for a stream, the
// content chunks before it.
func engineAbortError(o *observation) string {
	msg := fmt.Sprintf("finish_reason %q: the engine ended the request early", o.finish)
	if o.streamed {
		msg += fmt.Sprintf(" after %d content chunks", o.chunks)
	}
	return msg
}

// usageProblem describes what is impossible in the usage block of ex's
// response for its request, or returns "" (also when there is none). An
// echoed prompt is text the server did not generate: with echo, text
// beside no completion tokens is no false count.
func usageProblem(ex *exchange) string {
	o := &ex.obs
	if o.usage == nil {
		return ""
	}
	return o.usage.impossible(o.chunks > 0 && !ex.req.Echo, ex.req.outputCap(ex.endpoint))
}

// badUsageError describes a usage block no request can have, in the terms
// record's client uses: the count and, for a stream, the content chunks
// before it.
func badUsageError(ex *exchange) string {
	o := &ex.obs
	msg := "usage reports " + usageProblem(ex)
	if o.streamed {
		msg += fmt.Sprintf(" after %d content chunks", o.chunks)
	}
	return msg
}

func clamp32(v int64) int32 {
	switch {
	case v < 0:
		return 0
	case v > 1<<31-1:
		return 1<<31 - 1
	}
	return int32(v)
}

// emit hands a finished exchange to the flush loop, which writes it to
// the staging stream in completion order: a row waits for no earlier
// arrival, so a long generation holds back no later row from the next
// flush. Close writes the trace in arrival order.
func (p *Proxy) emit(ex *exchange) {
	p.mu.Lock()
	p.ready = append(p.ready, ex)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // already woken: it takes all that is ready
	}
}

// writeReadyLocked writes the ready rows; p.wmu is held.
func (p *Proxy) writeReadyLocked() {
	p.mu.Lock()
	batch := p.ready
	p.ready = nil
	p.mu.Unlock()
	for _, e := range batch {
		p.writeLocked(e)
	}
}

// writeLocked writes one row; p.wmu is held.
func (p *Proxy) writeLocked(ex *exchange) {
	if p.werr != nil {
		p.unrecorded++
		return
	}
	if err := p.w.Write(&ex.row); err != nil {
		p.fail(err)
		p.unrecorded++
		return
	}
	p.mu.Lock()
	p.stats.Rows++
	if !ex.cut {
		p.finished++
	}
	if ex.row.Error != "" {
		// Its OutputTokens is how far it got (usage, or its partial
		// output) or, with no output, the most the request could
		// generate: not a completed count. The token counts, which joules per token
		// divide by, are of successes, as record's are.
		p.stats.Failed++
	} else {
		p.stats.PromptTokens += int64(ex.row.PromptTokens)
		p.stats.OutputTokens += int64(ex.row.OutputTokens)
		if ex.obs.parseFailed || ex.badReq && ex.row.UsagePrompt == traces.Missing {
			p.stats.Unparsed++
		}
		if ex.row.UsagePrompt == traces.Missing || ex.row.UsageOutput == traces.Missing {
			p.stats.Estimated++
		}
	}
	p.dirty = true
	p.mu.Unlock()
	if p.prompts != nil {
		line := struct {
			ID       string          `json:"id"`
			Endpoint string          `json:"endpoint"`
			Model    string          `json:"model,omitempty"`
			Tools    json.RawMessage `json:"tools,omitempty"`
			Messages json.RawMessage `json:"messages,omitempty"`
			Prompt   json.RawMessage `json:"prompt,omitempty"`
		}{ID: ex.row.ID, Endpoint: ex.endpoint, Model: ex.req.Model, Tools: validJSON(ex.req.Tools),
			Messages: validJSON(ex.req.Messages), Prompt: validJSON(ex.req.Prompt)}
		b, err := json.Marshal(line)
		if err == nil {
			_, err = p.prompts.Write(append(b, '\n'))
		}
		if err != nil {
			p.fail(err)
		}
	}
}

func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return nil
	}
	return raw
}

func (p *Proxy) fail(err error) {
	if p.werr == nil {
		p.werr = err
		p.cfg.Logger.Error("proxy: writing the trace failed; traffic is still forwarded but no longer recorded", "err", err)
	}
}

// flush writes the rows the handlers left while the writer was held and
// makes the rows written so far durable, if any were written since the
// last flush. It writes only what is ready when it takes the writer, and
// does not drain after: while rows keep coming as fast as they are
// written, draining would never end and no flush would come. What the
// handlers leave meanwhile, the loop's next wake or flush writes.
func (p *Proxy) flush() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.writeReadyLocked()
	// dirty is set only with wmu held: every row it stands for is in
	// the flush below.
	p.mu.Lock()
	dirty := p.dirty
	p.dirty = false
	p.mu.Unlock()
	if dirty {
		p.flushLocked()
	}
}

// flushLocked flushes the writer and the prompts file; p.wmu is held.
func (p *Proxy) flushLocked() {
	if p.werr != nil {
		return
	}
	if f, ok := p.w.(traces.Flusher); ok {
		if err := f.Flush(); err != nil {
			p.fail(err)
		}
	}
	if p.prompts != nil {
		if err := p.prompts.Sync(); err != nil {
			p.fail(err)
		}
	}
}

func (p *Proxy) flushLoop() {
	defer close(p.flusherDone)
	t := time.NewTicker(p.flushTick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.flush() // Close stops this loop before it closes the writer
		case <-p.wake:
			p.wmu.Lock()
			p.writeReadyLocked()
			p.wmu.Unlock()
		}
	}
}

// Stats counts what has been written so far.
type Stats struct {
	Rows         int   // requests recorded
	Failed       int   // of which had an Error
	Unparsed     int   // succeeded, but their bodies could not be read (an encoding not decoded, bad JSON; a request's, when there was no usage): lengths are estimates, and a stream in an encoding not decoded (not gzip or br) has no FirstToken or TokenTimes
	Estimated    int   // succeeded without the server's usage (prompt or output): their token counts, in the sums below, are estimates
	PromptTokens int64 // Σ PromptTokens of the successes (usage, or the estimate)
	OutputTokens int64 // Σ OutputTokens of the successes (usage, or the estimate)
	NotRecorded  int   // POSTs to a completion path with a trailing slash: forwarded, not recorded (the server redirects or refuses them)
	// What Close did with the trace: Written when it is at Out; else
	// RowsLeft is the staging stream that kept its rows ("" when none).
	Written  bool
	RowsLeft string
	// NoneFinished: no request finished (those cut at shutdown do not
	// count), so Close wrote no trace and left an earlier file at Out.
	NoneFinished bool
}

// Stats returns the counts of the rows written so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close stops recording new requests, waits for the recorded ones in
// flight to finish, and closes the trace (converting it from the Arrow
// stream to Out's format when they differ). A session in which no
// request finished (those cut at shutdown do not count) writes no trace
// and removes its staging stream: an earlier file at Out stays as it
// was, and Stats says NoneFinished. Stop the HTTP server first.
func (p *Proxy) Close() error {
	p.amu.Lock()
	if p.closed {
		p.amu.Unlock()
		return nil
	}
	p.closed = true
	p.amu.Unlock()
	p.inflight.Wait()
	close(p.stop)
	<-p.flusherDone
	if p.ownUp != nil {
		// Else its keep-alive connections to the upstream, and their
		// goroutines, outlive the proxy by the idle timeout (90 s).
		p.ownUp.CloseIdleConnections()
	}

	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.writeReadyLocked()
	p.mu.Lock()
	none := p.finished == 0
	p.mu.Unlock()
	if none && p.werr == nil {
		p.discardLocked()
		return nil
	}
	var errs []error
	// Asked before Close, which removes the temporary file when it fails:
	// a file of the staging name that is not its link (another session's)
	// does not hold this session's rows.
	linked := p.wtmp != "" && traces.SamePath(p.wtmp, stagingPath(p.cfg.Out))
	closeErr := p.w.Close()
	if atomicfile.OnlyNotSynced(closeErr) {
		// The staging stream holds every row: it is converted and
		// removed, so its directory's entry need not survive a crash.
		closeErr = nil
	}
	if p.wtmp != "" {
		os.Remove(p.wtmp) // still there when Close renamed it onto its own hard link
	}
	var err error
	kept := false // the rows are left in the staging file
	switch {
	case closeErr == nil && p.werr == nil:
		err = convert(stagingPath(p.cfg.Out), p.cfg.Out)
		kept = err != nil && !errors.Is(err, atomicfile.ErrDirNotSynced)
	case closeErr == nil || linked:
		// The staging stream holds the rows written before the failure
		// (a failed Close lost those it was writing); a trace converted
		// from it would lack the others without a word, as record's
		// would after a failed write.
		var note string
		note, kept = p.keepStagingRows()
		err = fmt.Errorf("%w (%s)", errors.Join(p.werr, closeErr), note)
	default:
		// The failed Close removed the temporary file, their only
		// name: the staging path err names does not hold them.
		err = fmt.Errorf("%w (the rows written so far were not kept%s)", errors.Join(p.werr, closeErr), p.unrecordedNote())
	}
	// A trace renamed to Out whose directory was not synced is written,
	// even when removing the staging file failed too (convert joins that
	// error): errors.Is, not atomicfile.OnlyNotSynced, asks for the rename.
	written := err == nil || errors.Is(err, atomicfile.ErrDirNotSynced)
	if err != nil {
		errs = append(errs, err)
	}
	p.mu.Lock()
	p.stats.Written = written
	if kept {
		p.stats.RowsLeft = stagingPath(p.cfg.Out)
	}
	p.mu.Unlock()
	if p.prompts != nil {
		errs = append(errs, p.closePrompts(written, kept))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	return nil
}

// keepStagingRows leaves the rows a failed write or close left in the
// staging stream there, says how many of the rows written it holds and
// how many finished unrecorded after the failure, and reports whether it
// kept them. p.wmu is held.
func (p *Proxy) keepStagingRows() (note string, kept bool) {
	p.mu.Lock()
	written := p.stats.Rows
	p.mu.Unlock()
	note, kept = traces.KeepRows(stagingPath(p.cfg.Out), written)
	return note + p.unrecordedNote(), kept
}

// unrecordedNote says how many requests finished unrecorded after a
// failed write, to follow a note on the rows written; "" if none did.
// p.wmu is held.
func (p *Proxy) unrecordedNote() string {
	if p.unrecorded == 0 {
		return ""
	}
	return fmt.Sprintf("; %s that finished from the failure on went unrecorded", numfmt.Count(p.unrecorded, "request"))
}

// discardLocked drops a session that captured nothing: a trace empty or
// of cut requests only would replace an earlier one at Out, as would its
// prompts file. p.wmu is held.
func (p *Proxy) discardLocked() {
	// Asked before Abort removes the temporary file the link shares.
	if p.wtmp != "" && traces.SamePath(p.wtmp, stagingPath(p.cfg.Out)) {
		os.Remove(stagingPath(p.cfg.Out))
	}
	p.w.Abort()
	if p.prompts != nil {
		p.prompts.Abort()
	}
	p.mu.Lock()
	p.stats.NoneFinished = true
	p.mu.Unlock()
	p.cfg.Logger.Info("proxy: no request finished; no trace written", "out", p.cfg.Out)
}

// closePrompts publishes the prompts file once the trace is written, and
// else removes it, so that a failed session leaves an earlier session's
// prompts as they were. When the rows are left in the staging file, their
// prompts are left in the temporary file and the error names both.
func (p *Proxy) closePrompts(traceWritten, rowsKept bool) error {
	switch {
	case traceWritten:
		return p.prompts.Commit()
	case rowsKept:
		// A failure to sync names the prompts' path; where they are left
		// is said either way.
		err := errors.Join(p.prompts.Sync(), p.prompts.Close())
		return errors.Join(err, fmt.Errorf("the prompts of the rows left in %s are in %s", stagingPath(p.cfg.Out), p.prompts.Name()))
	}
	p.prompts.Abort()
	return nil
}

// convert copies the staging stream at src, in completion order, to dst
// in arrival order, and removes src on success. A row's ID is its
// arrival's sequence number, and every arrival has its row (Close converts
// no stream a failed write left short): only the rows that finished ahead
// of an earlier arrival still running are held in memory (ArrivalOrder).
func convert(src, dst string) error {
	r, err := traces.Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	meta := r.Meta().Clone()
	meta.Set("proxy.status", "complete")
	w, err := traces.Create(dst, meta)
	if err != nil {
		return err
	}
	if _, err := traces.Copy(context.Background(), w, traces.ArrivalOrder(r, src)); err != nil {
		w.Abort()
		return err
	}
	// A copy renamed to dst whose directory was not synced is in place:
	// src is removed all the same, and the error returned.
	err = w.Close()
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		return err
	}
	return errors.Join(err, os.Remove(src))
}

// tapTransport stamps ActualSend and taps the response body of recorded
// requests.
type tapTransport struct {
	p  *Proxy
	rt http.RoundTripper
}

func (t *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(ctxKey{}).(*exchange)
	if ex == nil {
		return t.rt.RoundTrip(req)
	}
	ex.row.ActualSend = t.p.now()
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		ex.upErr = err
		return nil, err
	}
	ex.obs.status = resp.StatusCode
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		ex.obs.location = resp.Header.Get("Location")
	}
	tapped := false
	defer func() {
		if !tapped { // newTap panicked: no one else holds the body to close it
			resp.Body.Close()
		}
	}()
	resp.Body = newTap(t.p, ex, resp)
	tapped = true
	return resp, nil
}

// tap passes the response body through unchanged while observing it.
type tap struct {
	rc   io.ReadCloser
	p    *Proxy
	ex   *exchange
	sse  *sseParser      // streamed 2xx responses, identity or in an encoding decoded as it arrives
	dec  *decodingParser // feeds sse from an encoded stream
	buf  []byte          // everything else, parsed at the end
	keep bool
	enc  string
	done bool
	// closed: rc was closed after a panic in Read or in Close's end;
	// Close does not again.
	closed bool
}

func newTap(p *Proxy, ex *exchange, resp *http.Response) *tap {
	t := &tap{rc: resp.Body, p: p, ex: ex, enc: resp.Header.Get("Content-Encoding")}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	identity := t.enc == "" || strings.EqualFold(t.enc, "identity")
	stream := strings.HasPrefix(ct, "text/event-stream") && resp.StatusCode < 400
	switch open := streamDecoder(t.enc); {
	case stream && identity:
		t.sse = newSSEParser(&ex.obs)
	case stream && open != nil:
		t.sse = newSSEParser(&ex.obs)
		t.dec = newDecodingParser(t.sse, open)
	default:
		t.keep = true
		// decodeBody reads no encoding that streamDecoder does not:
		// such a stream is not read at its end either.
		if stream && !p.warnedUndecoded.Swap(true) {
			p.cfg.Logger.Warn("proxy: a stream's Content-Encoding is not decoded: such rows have no FirstToken or TokenTimes and estimated token counts (Stats.Unparsed)", "encoding", t.enc)
		}
	}
	return t
}

func (t *tap) Read(b []byte) (int, error) {
	defer t.closeOnPanic()
	n, err := t.rc.Read(b)
	if n > 0 {
		at := t.p.now()
		// Not capped at data: [DONE] here: an encoded stream's parser
		// runs in its own goroutine until end joins it.
		t.ex.obs.lastByte = at
		switch {
		case t.dec != nil:
			if !t.done { // after end, nothing takes it
				t.dec.feed(b[:n], at)
			}
		case t.sse != nil:
			t.sse.feed(b[:n], at)
		case t.keep:
			if len(t.buf)+n > maxBody {
				t.keep, t.buf = false, nil
				t.ex.obs.parseFailed = true
			} else {
				t.buf = append(t.buf, b[:n]...)
			}
		}
	}
	switch {
	case err == io.EOF:
		t.ex.obs.eof = true
		t.end()
	case err != nil:
		t.ex.obs.readErr = err
	}
	return n, err
}

func (t *tap) Close() error {
	defer t.closeOnPanic()
	t.end()
	if t.closed {
		return nil
	}
	return t.rc.Close()
}

// closeOnPanic closes the upstream body when Read or Close panics, and
// lets the panic go on: ReverseProxy closes no body on a panic, and one left open
// never releases its upstream connection.
func (t *tap) closeOnPanic() {
	if v := recover(); v != nil {
		if !t.closed {
			t.closed = true
			t.rc.Close()
		}
		panic(v)
	}
}

// end parses what was buffered, once.
func (t *tap) end() {
	if t.done {
		return
	}
	t.done = true
	o := &t.ex.obs
	if t.dec != nil {
		t.dec.end() // the parser's fields are the tap's again
	}
	if o.sawDone && o.doneAt >= 0 {
		// The stream is over at data: [DONE]: later bytes no client reads.
		o.lastByte = min(o.lastByte, o.doneAt)
	}
	at := t.p.now()
	if o.lastByte >= 0 {
		at = o.lastByte
	}
	if t.sse != nil {
		t.sse.end(at)
		return
	}
	if !t.keep || !o.eof {
		return
	}
	body, err := decodeBody(t.buf, t.enc, maxBody)
	if err != nil {
		o.parseFailed = true
		return
	}
	t.buf = nil
	if o.status >= 400 {
		o.errMsg = errorText(body)
		return
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("data:")) || bytes.HasPrefix(bytes.TrimSpace(body), []byte(":")) {
		// A stream not labelled text/event-stream: parsed only now, so
		// its token times are unknown.
		p := newSSEParser(o)
		p.feed(body, -1)
		p.end(-1)
		return
	}
	r, ok := o.decode(body)
	if !ok {
		o.parseFailed = true
		return
	}
	o.apply(r, -1)
}

// Serve runs the proxy on ln until ctx ends, then stops accepting, lets
// in-flight requests finish (up to ShutdownGrace, then cuts them), and
// closes the trace. It returns the counts of what it wrote.
func Serve(ctx context.Context, ln net.Listener, cfg Config) (Stats, error) {
	p, err := New(cfg)
	if err != nil {
		ln.Close()
		return Stats{}, err
	}
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          slog.NewLogLogger(p.cfg.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		p.cfg.Logger.Warn("proxy: shutdown grace ran out; cutting the requests still in flight", "grace", p.cfg.ShutdownGrace)
		p.cut.Store(true)
		srv.Close()
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	closeErr := p.Close()
	return p.Stats(), errors.Join(serveErr, closeErr)
}
