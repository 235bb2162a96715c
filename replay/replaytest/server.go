// Package replaytest provides a fault-injecting OpenAI-compatible streaming
// server for testing replay (and anything else that speaks the chat
// completions or completions API).
//
// In its well-behaved mode it imitates servesim's test engine: every ASCII
// byte of prompt text is one token, a chat request costs ChatOverhead (20)
// tokens more, and it streams exactly max_tokens output tokens of one byte
// each (fewer with Options.EOSAfter), TokensPerChunk per chunk, then a usage
// chunk with empty choices and data: [DONE]. Faults are chosen per request
// by Options.Fault.
package replaytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is how the server misbehaves on one request.
type Fault int

const (
	OK             Fault = iota // well-behaved stream
	Status                      // reply Options.Status (default 500) with an OpenAI error body
	Reset                       // reset the connection (TCP RST) before any response
	ResetMidStream              // stream FaultAfter chunks, then reset the connection
	NoDone                      // stream everything but data: [DONE], then end the body cleanly
	StreamError                 // stream FaultAfter chunks, then data: {"error": {...}}
	EmptyChoices                // stream FaultAfter chunks, then a chunk with "choices": [] and no usage
	NoUsage                     // stream everything and [DONE], but no usage chunk
	Hang                        // send 200 headers, then nothing until the client leaves
	Unterminated                // stream FaultAfter chunks, then 9 MiB of data that never ends its line
	BadChunk                    // stream FaultAfter chunks, then a chunk that is not JSON, then the rest
	StatusHang                  // reply Options.Status with the start of an error body, then nothing until the client leaves
	OtherChoice                 // stream FaultAfter chunks, then a content chunk for choice index 1, then the rest
	TwoChoices                  // stream FaultAfter chunks, then a content chunk holding choices 0 and 1, then the rest
)

// Options configure a Server. The zero value is a fast well-behaved server.
type Options struct {
	TTFT            time.Duration     // before the first content chunk
	ITL             time.Duration     // between content chunks, paced by deadlines: a late chunk does not delay the next
	TokensPerChunk  int               // output tokens per content chunk; 0 = 1
	ChatOverhead    int               // prompt tokens a chat request costs beyond its text; 0 = 20, -1 = none
	APIKey          string            // if set, a request without "Bearer APIKey" gets 401
	Status          int               // status for the Status fault; 0 = 500
	FaultAfter      int               // content chunks before a mid-stream fault; 0 = 2
	ContinuousUsage bool              // put cumulative usage on every content chunk, too
	UsageIfAsked    bool              // put it there when the request sent stream_options.continuous_usage_stats, as vLLM and SGLang do
	Fault           func(n int) Fault // fault for the n-th request (0-based, arrival order); nil = OK
	Record          bool              // keep every request (Requests)
	Cached          func(n int) int   // cached prompt tokens to report for request n; nil = none
	Done            func(n int)       // called when request n's stream has been fully written
	Listener        net.Listener      // serve on this listener instead of a new loopback port
	LineEnd         string            // what ends each SSE line: "" = LF; servers also send CRLF, and the standard allows a lone CR
	DonePad         string            // white space after data: [DONE], as some servers pad it
	Slots           int               // requests streamed at once; more wait for a free slot before their stream; 0 = no limit
	EOSAfter        int               // end each request after this many output tokens with finish_reason "stop" (an EOS), unless it sent ignore_eos; 0 = never
	EOSIgnoresFlag  bool              // stop at EOSAfter even when the request sent ignore_eos, as an engine without it does
	Metrics         string            // the page GET /metrics serves, as an engine's Prometheus endpoint; "" = 404
}

// Request is what the server received.
type Request struct {
	Path          string
	Authorization string // the raw header; tests compare, never print it
	Model         string
	MaxTokens     int
	Temperature   *float64
	IgnoreEOS     bool
	IncludeUsage  bool
	Continuous    bool // stream_options.continuous_usage_stats
	Stream        bool
	Prompt        string // chat: the concatenated message contents
}

// Server is a running fault server.
type Server struct {
	*httptest.Server
	opts Options
	n    atomic.Int64
	mu   sync.Mutex
	reqs []Request
	slot chan struct{} // Options.Slots
}

// New starts a server; Close it when done.
func New(opts Options) *Server {
	if opts.TokensPerChunk <= 0 {
		opts.TokensPerChunk = 1
	}
	switch opts.ChatOverhead {
	case 0:
		opts.ChatOverhead = 20
	case -1:
		opts.ChatOverhead = 0
	}
	if opts.Status == 0 {
		opts.Status = http.StatusInternalServerError
	}
	if opts.FaultAfter <= 0 {
		opts.FaultAfter = 2
	}
	s := &Server{opts: opts}
	if opts.Slots > 0 {
		s.slot = make(chan struct{}, opts.Slots)
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	if opts.Listener != nil {
		s.Server.Listener.Close()
		s.Server.Listener = opts.Listener
	}
	s.Server.Config.MaxHeaderBytes = 1 << 20
	s.Start()
	return s
}

// BaseURL is the API root to configure clients with: URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Count is how many requests arrived.
func (s *Server) Count() int { return int(s.n.Load()) }

// Requests returns the requests received so far (Options.Record).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

type wireRequest struct {
	Model         string   `json:"model"`
	Prompt        *string  `json:"prompt"`
	MaxTokens     int      `json:"max_tokens"`
	Temperature   *float64 `json:"temperature"`
	Stream        bool     `json:"stream"`
	IgnoreEOS     bool     `json:"ignore_eos"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
		Continuous   bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" && s.opts.Metrics != "" {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		io.WriteString(w, s.opts.Metrics)
		return
	}
	chat := r.URL.Path == "/v1/chat/completions"
	if !chat && r.URL.Path != "/v1/completions" {
		writeJSON(w, http.StatusNotFound, `{"detail":"Not Found"}`)
		return
	}
	n := int(s.n.Add(1) - 1)
	var req wireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, `{"error":{"message":"bad JSON body","type":"invalid_request_error"}}`)
		return
	}
	prompt := ""
	if chat {
		for _, m := range req.Messages {
			prompt += m.Content
		}
	} else if req.Prompt != nil {
		prompt = *req.Prompt
	}
	got := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Model: req.Model,
		MaxTokens: req.MaxTokens, Temperature: req.Temperature, IgnoreEOS: req.IgnoreEOS, Stream: req.Stream,
		IncludeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		Continuous:   req.StreamOptions != nil && req.StreamOptions.Continuous, Prompt: prompt}
	if s.opts.Record {
		s.mu.Lock()
		s.reqs = append(s.reqs, got)
		s.mu.Unlock()
	}
	if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
		writeJSON(w, http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	if !req.Stream || req.MaxTokens < 1 {
		writeJSON(w, http.StatusBadRequest, `{"error":{"message":"want stream=true and max_tokens >= 1","type":"invalid_request_error"}}`)
		return
	}
	fault := OK
	if s.opts.Fault != nil {
		fault = s.opts.Fault(n)
	}
	promptTokens := len(prompt)
	if chat {
		promptTokens += s.opts.ChatOverhead
	}
	cached := 0
	if s.opts.Cached != nil {
		cached = s.opts.Cached(n)
	}
	switch fault {
	case Status:
		code := s.opts.Status
		writeJSON(w, code, fmt.Sprintf(`{"error":{"message":"injected status %d","type":"server_error","code":%d}}`, code, code))
		return
	case StatusHang:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.opts.Status)
		w.Write([]byte(`{"error":`))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		<-r.Context().Done()
		return
	case Reset:
		if conn := hijack(w); conn != nil {
			reset(conn)
		}
		return
	}
	if s.slot != nil {
		select {
		case s.slot <- struct{}{}:
			defer func() { <-s.slot }()
		case <-r.Context().Done():
			return
		}
	}
	maxTokens, stop := req.MaxTokens, `"length"`
	if eos := s.opts.EOSAfter; eos > 0 && eos < maxTokens && (!req.IgnoreEOS || s.opts.EOSIgnoresFlag) {
		maxTokens, stop = eos, `"stop"`
	}
	continuous := s.opts.ContinuousUsage || s.opts.UsageIfAsked && got.Continuous
	s.stream(w, r, chat, n, fault, maxTokens, stop, promptTokens, cached, continuous)
}

// stream writes the SSE response of maxTokens output tokens, the last with
// finish_reason stop, injecting fault; continuous puts the running usage on
// every content chunk.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, chat bool, n int, fault Fault, maxTokens int, stop string, promptTokens, cached int, continuous bool) {
	var out *bufio.Writer
	var flush func()
	var conn net.Conn
	if fault == ResetMidStream {
		// Write the HTTP response by hand so the connection can be reset.
		conn = hijack(w)
		if conn == nil {
			return
		}
		out = bufio.NewWriter(conn)
		out.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
		flush = func() { out.Flush() }
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		f, _ := w.(http.Flusher)
		flush = func() {
			if f != nil {
				f.Flush()
			}
		}
		out = bufio.NewWriterSize(writerFunc(w.Write), 512)
		flushAll := flush
		flush = func() { out.Flush(); flushAll() }
	}
	flush()
	if fault == Hang {
		<-r.Context().Done() // until the client gives up
		return
	}
	id := "cmpl-" + strconv.Itoa(n)
	buf := make([]byte, 0, 512)
	end := s.opts.LineEnd + s.opts.LineEnd // the data line's end and a blank line
	if end == "" {
		end = "\n\n"
	}
	send := func(b []byte) {
		out.WriteString("data: ")
		out.Write(b)
		out.WriteString(end)
		flush()
	}
	if chat { // role-only first chunk, as vLLM sends: not a content token
		buf = append(buf[:0], `{"id":"`...)
		buf = append(buf, id...)
		buf = append(buf, `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`...)
		send(buf)
	}
	// Chunks are due at deadlines from here, TTFT then ITL apart, rather
	// than a sleep after each: on a loaded machine a late wake-up delays
	// one chunk, not every chunk after it, so the stream keeps its speed.
	due := time.Now().Add(s.opts.TTFT)
	time.Sleep(time.Until(due))
	emitted, chunks := 0, 0
	for emitted < maxTokens {
		if chunks > 0 && s.opts.ITL > 0 {
			due = due.Add(s.opts.ITL)
			time.Sleep(time.Until(due))
		}
		if chunks == s.opts.FaultAfter {
			switch fault {
			case ResetMidStream:
				reset(conn)
				return
			case StreamError:
				send([]byte(`{"error":{"message":"injected engine failure","type":"internal_error","code":500}}`))
				return
			case Unterminated:
				out.WriteString("data: ")
				line := bytes.Repeat([]byte("x"), 64<<10)
				for range 9 * 16 { // 9 MiB
					if _, err := out.Write(line); err != nil {
						return
					}
				}
				flush()
				<-r.Context().Done()
				return
			case BadChunk:
				send([]byte(`{"id":"` + id + `","choices":[{`))
			case EmptyChoices:
				buf = append(buf[:0], `{"id":"`...)
				buf = append(buf, id...)
				buf = append(buf, `","choices":[]}`...)
				send(buf)
			case OtherChoice:
				send([]byte(`{"id":"` + id + `","choices":[` + choiceJSON(chat, 1, "zz") + `]}`))
			case TwoChoices:
				send([]byte(`{"id":"` + id + `","choices":[` + choiceJSON(chat, 0, "y") + `,` + choiceJSON(chat, 1, "zz") + `]}`))
			}
		}
		k := min(s.opts.TokensPerChunk, maxTokens-emitted)
		emitted += k
		chunks++
		text := make([]byte, k)
		for i := range text {
			text[i] = byte('a' + (emitted-k+i)%26)
		}
		finish := "null"
		if emitted == maxTokens {
			finish = stop
		}
		buf = append(buf[:0], `{"id":"`...)
		buf = append(buf, id...)
		if chat {
			buf = append(buf, `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`...)
			buf = append(buf, text...)
			buf = append(buf, `"},"finish_reason":`...)
		} else {
			buf = append(buf, `","object":"text_completion","choices":[{"index":0,"text":"`...)
			buf = append(buf, text...)
			buf = append(buf, `","finish_reason":`...)
		}
		buf = append(buf, finish...)
		buf = append(buf, '}', ']')
		if continuous {
			buf = appendUsage(buf, promptTokens, emitted, cached)
		}
		buf = append(buf, '}')
		send(buf)
	}
	if fault != NoUsage {
		buf = append(buf[:0], `{"id":"`...)
		buf = append(buf, id...)
		buf = append(buf, `","choices":[]`...)
		buf = appendUsage(buf, promptTokens, emitted, cached)
		buf = append(buf, '}')
		send(buf)
	}
	if fault != NoDone {
		send([]byte("[DONE]" + s.opts.DonePad))
	}
	if s.opts.Done != nil {
		s.opts.Done(n)
	}
}

// choiceJSON is one content choice of either endpoint's chunk.
func choiceJSON(chat bool, index int, text string) string {
	if chat {
		return `{"index":` + strconv.Itoa(index) + `,"delta":{"content":"` + text + `"},"finish_reason":null}`
	}
	return `{"index":` + strconv.Itoa(index) + `,"text":"` + text + `","finish_reason":null}`
}

func appendUsage(b []byte, prompt, completion, cached int) []byte {
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	if cached > 0 {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(cached), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write([]byte(body))
}

func hijack(w http.ResponseWriter) net.Conn {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return nil
	}
	return conn
}

// reset closes conn with a TCP RST.
func reset(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// ClosedAddr returns the base URL of a port nothing listens on (for
// connection-refused tests).
func ClosedAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}
