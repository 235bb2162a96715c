package proxy

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/servesim/servesim/traces"
)

// The fuzz targets feed client requests and upstream responses to the
// parsers the proxy runs on live traffic. Seed corpora, made from the
// examples of the other tests, live in testdata/fuzz/<FuzzName>/.

// fuzzBlock is the fuzz proxies' block size: 4 tokens, 16 bytes at 0.25
// tokens per byte, so that short inputs span several blocks.
const fuzzBlock = 4

// fuzzProxy is a proxy without server or upstream whose rows go to a real
// trace writer, so that a row the trace would reject fails the target.
type fuzzProxy struct {
	*Proxy
	path string
}

func newFuzzProxy(f *testing.F) *fuzzProxy {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:8000"
	cfg.Out = filepath.Join(f.TempDir(), "rows.jsonl")
	cfg.BlockSize = fuzzBlock
	cfg.Logger = slog.New(slog.DiscardHandler)
	if err := cfg.Validate(); err != nil {
		f.Fatal(err)
	}
	// No flush loop: reset and record write the rows themselves.
	up, _ := url.Parse(cfg.Upstream)
	p := &Proxy{cfg: cfg, upstream: up, start: time.Now()}
	return &fuzzProxy{Proxy: p, path: cfg.Out}
}

// reset readies the proxy for one input: an input that failed half way
// must not leave rows queued or the writer failed for the next one.
func (fp *fuzzProxy) reset(t *testing.T) {
	fp.ready, fp.werr = nil, nil
	if fp.w != nil && fp.stats.Rows < 1000 {
		return
	}
	if fp.w != nil {
		fp.w.Abort() // a fresh file now and then, so a long run does not fill the disk
	}
	w, err := traces.Create(fp.path, fp.meta())
	if err != nil {
		t.Fatal(err)
	}
	fp.w, fp.stats = w, Stats{}
}

func fuzzHTTPRequest() *http.Request {
	return &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/v1/chat/completions"}, Header: http.Header{}}
}

// request is a recorded request whose body has just been described.
func (fp *fuzzProxy) request(body []byte) *exchange {
	ex := fp.arrive()
	fp.describe(ex, fuzzHTTPRequest(), body)
	ex.row.ActualSend = fp.now()
	return ex
}

// described is what describe makes of body, outside any recording.
func (fp *fuzzProxy) described(body []byte) *exchange {
	ex := &exchange{}
	ex.row.Reset()
	fp.describe(ex, fuzzHTTPRequest(), body)
	return ex
}

// record finishes ex, fails t unless the trace took its row, and checks it.
func (fp *fuzzProxy) record(t *testing.T, ex *exchange) *traces.Request {
	t.Helper()
	fp.finish(ex)
	fp.inflight.Done()
	fp.wmu.Lock() // no flush loop here: write the row now
	fp.writeReadyLocked()
	fp.wmu.Unlock()
	if fp.werr != nil {
		t.Fatalf("the trace rejected the row: %v\n%+v", fp.werr, ex.row)
	}
	r := &ex.row
	for name, v := range map[string]int32{"usage_prompt": r.UsagePrompt, "usage_output": r.UsageOutput,
		"usage_cached": r.UsageCached, "chunks": r.Chunks} {
		if v < 0 && v != traces.Missing {
			t.Fatalf("%s %d", name, v)
		}
	}
	if r.TokenTimes != nil {
		tt := r.TokenTimes
		if len(tt) != int(r.UsageOutput) || !slices.IsSorted(tt) || tt[0] != r.FirstToken ||
			(r.LastToken != traces.Missing && tt[len(tt)-1] != r.LastToken) {
			t.Fatalf("token times %v: usage_output %d, first %d, last %d", tt, r.UsageOutput, r.FirstToken, r.LastToken)
		}
	}
	for _, s := range []string{r.Error, r.FinishReason, r.Class} {
		if !utf8.ValidString(s) {
			t.Fatalf("not UTF-8, as trace strings must be: %q", s)
		}
	}
	return r
}

// FuzzRenderPrompt: describing a request body is deterministic, blind to
// how the JSON is laid out, makes ceil(len/block) prefix hashes and a row
// the trace accepts, and a conversation (or prompt list) cut short renders
// to a prefix of the whole, so it shares the whole's leading hashes.
func FuzzRenderPrompt(f *testing.F) {
	fp := newFuzzProxy(f)
	bb := blockBytes(fuzzBlock, fp.cfg.TokensPerByte)
	f.Fuzz(func(t *testing.T, body []byte) {
		fp.reset(t)
		ex := fp.request(body)
		if again := fp.described(body); !reflect.DeepEqual(again.prompt, ex.prompt) ||
			!slices.Equal(again.row.PrefixHashes, ex.row.PrefixHashes) {
			t.Fatal("the same body described twice differs")
		}
		var ind bytes.Buffer
		if json.Indent(&ind, body, "", "\t") == nil {
			re := fp.described(ind.Bytes())
			if !reflect.DeepEqual(re.prompt, ex.prompt) || !slices.Equal(re.row.PrefixHashes, ex.row.PrefixHashes) ||
				re.req.maxTokens(re.endpoint) != ex.req.maxTokens(ex.endpoint) || re.row.Class != ex.row.Class {
				t.Fatalf("re-indenting the body changed its description:\n%q\n%q", ex.prompt.text, re.prompt.text)
			}
		}
		pr, hashes := ex.prompt, ex.row.PrefixHashes
		if pr.tokens != nil {
			if pr.text != nil || len(hashes) != (len(pr.tokens)+fuzzBlock-1)/fuzzBlock {
				t.Fatalf("%d token ids, %d hashes, text %q", len(pr.tokens), len(hashes), pr.text)
			}
		} else if len(hashes) != (len(pr.text)+bb-1)/bb {
			t.Fatalf("%d bytes, %d hashes", len(pr.text), len(hashes))
		}
		mt := ex.req.maxTokens(ex.endpoint)
		if c, m := ex.req.MaxCompletionTokens, ex.req.MaxTokens; mt < -1 ||
			(mt >= 0 && (c == nil || *c != mt) && (m == nil || *m != mt)) {
			t.Fatalf("max tokens %d", mt)
		}
		checkCutPrompts(t, &ex.req, pr, bb)

		ex.obs.status, ex.obs.eof, ex.obs.parseFailed = http.StatusOK, true, true // answered, with nothing read
		row := fp.record(t, ex)
		if want := clamp32(max(ex.req.generationCap(ex.endpoint), 0)); row.OutputTokens != want || want < clamp32(max(mt, 0)) {
			t.Fatalf("output tokens %d with no output read, max tokens %d", row.OutputTokens, mt)
		}
		if pr.tokens != nil && row.PromptTokens != clamp32(int64(len(pr.tokens))) {
			t.Fatalf("prompt tokens %d for %d token ids", row.PromptTokens, len(pr.tokens))
		}
	})
}

// checkCutPrompts cuts the messages (or the prompt list) of req after a few
// items and checks that each cut renders to a prefix of full.
func checkCutPrompts(t *testing.T, req *apiRequest, full promptText, bb int) {
	chat := len(req.Messages) > 0 && !isNull(req.Messages)
	list := req.Prompt
	if chat {
		list = req.Messages
	}
	var items []json.RawMessage
	if json.Unmarshal(list, &items) != nil || len(items) < 2 {
		return
	}
	cut := func(j int) promptText {
		sub := *req
		// The items' own bytes: json.Marshal would escape "&" in them.
		b := []byte{'['}
		for i, it := range items[:j] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, it...)
		}
		b = append(b, ']')
		if chat {
			sub.Messages = b
		} else {
			sub.Prompt = b
		}
		return renderPrompt(&sub)
	}
	var ss []string
	switch {
	case chat:
		// Only a list that reads as messages promises prefixes; any other
		// is hashed as raw JSON, which starts with "[" where a message
		// starts with "<|".
		tools := cut(0).text
		if !bytes.HasPrefix(full.text[len(tools):], []byte("<|")) {
			return
		}
	case full.tokens != nil:
	case json.Unmarshal(req.Prompt, &ss) == nil:
	default:
		return // raw JSON
	}
	for _, j := range []int{1, len(items) / 2, len(items) - 1} {
		part := cut(j)
		if full.tokens != nil {
			if part.tokens == nil {
				continue // [null, 5] reads as ids, [null] as text
			}
			k := len(part.tokens) / fuzzBlock
			if !slices.Equal(part.tokens, full.tokens[:len(part.tokens)]) ||
				!slices.Equal(tokenPrefixHashes(part.tokens, fuzzBlock)[:k], tokenPrefixHashes(full.tokens, fuzzBlock)[:k]) {
				t.Fatalf("the first %d of %d items: ids %v not a prefix of %v", j, len(items), part.tokens, full.tokens)
			}
			continue
		}
		k := len(part.text) / bb
		if !bytes.HasPrefix(full.text, part.text) ||
			!slices.Equal(PrefixHashes(part.text, bb)[:k], PrefixHashes(full.text, bb)[:k]) {
			t.Fatalf("the first %d of %d items render to\n%q\nnot a prefix of\n%q", j, len(items), part.text, full.text)
		}
	}
}

// pieces cuts n bytes into sizes drawn from seed, mostly short ones so that
// cuts fall inside lines, "\r\n" pairs and JSON.
func pieces(seed uint64, n int) []int {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []int
	for n > 0 {
		k := 1 + r.IntN(8)
		if r.IntN(4) == 0 {
			k = 1 + r.IntN(256)
		}
		k = min(k, n)
		out = append(out, k)
		n -= k
	}
	return out
}

// sseObserve feeds body to an SSE parser in pieces of the given sizes (the
// rest whole), piece i at time at(i), and ends the stream.
func sseObserve(body []byte, sizes []int, at func(i int) int64) observation {
	o := observation{firstOut: -1, lastOut: -1, lastByte: -1}
	p := newSSEParser(&o)
	i := 0
	for b := body; len(b) > 0; i++ {
		n := len(b)
		if i < len(sizes) {
			n = sizes[i]
		}
		p.feed(b[:n], at(i))
		b = b[n:]
	}
	p.end(at(i))
	return o
}

// FuzzSSEResponse: where the reads cut a stream does not change what is
// observed of it, chunk times follow the reads, and the counts are sane.
func FuzzSSEResponse(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		const at = 7
		same := func(int) int64 { return at }
		whole := sseObserve(body, nil, same)
		if again := sseObserve(body, nil, same); !reflect.DeepEqual(again, whole) {
			t.Fatalf("the same stream observed twice:\n%+v\n%+v", whole, again)
		}
		sizes := pieces(seed, len(body))
		if split := sseObserve(body, sizes, same); !reflect.DeepEqual(split, whole) {
			t.Fatalf("read in pieces %v:\n%+v\nwhole:\n%+v", sizes, split, whole)
		}
		if whole.chunks < 0 || whole.outBytes < whole.chunks {
			t.Fatalf("%d chunks carrying %d bytes", whole.chunks, whole.outBytes)
		}

		// Piece i arrives at 100+i: an event's time is that of the piece
		// that ended it.
		timed := sseObserve(body, sizes, func(i int) int64 { return 100 + int64(i) })
		var ct []int64
		for _, c := range timed.timed {
			ct = append(ct, c.At)
		}
		if len(ct) != timed.chunks || !slices.IsSorted(ct) ||
			(len(ct) > 0 && (ct[0] != timed.firstOut || ct[len(ct)-1] != timed.lastOut || ct[0] < 100 || ct[len(ct)-1] > 100+int64(len(sizes)))) ||
			(len(ct) == 0 && (timed.firstOut != -1 || timed.lastOut != -1)) {
			t.Fatalf("chunk times %v: %d chunks, first %d, last %d, %d pieces", ct, timed.chunks, timed.firstOut, timed.lastOut, len(sizes))
		}
		for i := range timed.timed {
			timed.timed[i].At = at
		}
		timed.firstOut, timed.lastOut, timed.doneAt = whole.firstOut, whole.lastOut, whole.doneAt
		if !reflect.DeepEqual(timed, whole) {
			t.Fatalf("times changed more than the times:\n%+v\n%+v", timed, whole)
		}
	})
}

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// encodingName is an encoding as decodeBody reads it.
func encodingName(enc string) string { return strings.ToLower(strings.TrimSpace(enc)) }

func isGzip(enc string) bool { return encodingName(enc) == "gzip" || encodingName(enc) == "x-gzip" }

// pieceReader returns b in reads of the given sizes, then the rest at once.
type pieceReader struct {
	b     []byte
	sizes []int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := len(r.b)
	if len(r.sizes) > 0 {
		n, r.sizes = min(n, r.sizes[0]), r.sizes[1:]
	}
	n = copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

// timeless is a row without its times and ID, which depend on when the
// bytes came, not on what they said.
func timeless(r *traces.Request) traces.Request {
	c := *r
	c.ID, c.Arrival, c.ActualSend = "", 0, 0
	if c.FirstToken != traces.Missing {
		c.FirstToken = 0
	}
	if c.LastToken != traces.Missing {
		c.LastToken = 0
	}
	if c.FailTime != traces.Missing {
		c.FailTime = 0
	}
	if c.TokenTimes != nil {
		c.TokenTimes = make([]int64, len(c.TokenTimes))
	}
	return c
}

// FuzzResponse passes an upstream response (any status, content type,
// encoding and body; unless asSent, the body is compressed when the
// encoding names gzip, br or deflate) through the proxy's tap to a finished row. The row must
// be one the trace accepts, with sane counts, UTF-8 strings and the
// status's error, and the same, times aside, whether the body came whole
// or in pieces. An encoding the proxy decodes (gzip, br, identity) must
// record what the plain body records; one it does not (deflate, any
// other) leaves the row unread: no FirstToken, TokenTimes or usage.
func FuzzResponse(f *testing.F) {
	fp := newFuzzProxy(f)
	reqs := map[bool][]byte{
		false: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":5}`),
		true:  []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":true}`),
	}
	f.Fuzz(func(t *testing.T, stream bool, status uint16, ctype, enc string, plain []byte, seed uint64, asSent bool) {
		fp.reset(t)
		code := 200 + int(status)%400
		// net/http trims a header value's spaces before the proxy sees it.
		enc = strings.TrimSpace(enc)
		respondAs := func(enc string, body []byte, sizes []int) *traces.Request {
			ex := fp.request(reqs[stream])
			ex.obs.status = code
			h := http.Header{}
			if ctype != "" {
				h.Set("Content-Type", ctype)
			}
			if enc != "" {
				h.Set("Content-Encoding", enc)
			}
			tp := newTap(fp.Proxy, ex, &http.Response{StatusCode: code, Header: h,
				Body: io.NopCloser(&pieceReader{b: body, sizes: sizes})})
			if _, err := io.Copy(io.Discard, tp); err != nil {
				t.Fatal(err)
			}
			tp.Close()
			return fp.record(t, ex)
		}
		body := plain // asSent: bytes that may not decode, as a corrupt body's
		if !asSent {
			body = encoded(plain, enc)
		}
		respond := func(sizes []int) *traces.Request { return respondAs(enc, body, sizes) }
		whole := respond(nil)
		sizes := pieces(seed, len(body))
		split := respond(sizes)
		if a, b := timeless(whole), timeless(split); !reflect.DeepEqual(a, b) {
			t.Fatalf("read in pieces %v:\n%+v\nwhole:\n%+v", sizes, b, a)
		}
		if whole.HTTPStatus != int32(code) || (code >= 400 && !strings.HasPrefix(whole.Error, fmt.Sprintf("HTTP %d", code))) {
			t.Fatalf("status %d recorded as %d, error %q", code, whole.HTTPStatus, whole.Error)
		}
		if len(whole.Error) > 350 {
			t.Fatalf("error of %d bytes", len(whole.Error))
		}
		if !stream && whole.Chunks != traces.Missing {
			t.Fatalf("%d chunks for a request that did not stream", whole.Chunks)
		}
		switch name := encodingName(enc); {
		case name == "" || name == "identity" || streamDecoder(name) != nil && !asSent:
			if a, b := timeless(whole), timeless(respondAs("", plain, nil)); !reflect.DeepEqual(a, b) {
				t.Fatalf("content-encoding %q recorded otherwise than the plain body:\n%+v\nplain:\n%+v", enc, a, b)
			}
		case whole.FirstToken != traces.Missing || whole.TokenTimes != nil || whole.UsageOutput != traces.Missing:
			t.Fatalf("content-encoding %q is not decoded, yet the row has times or usage: %+v", enc, whole)
		}
	})
}

// encoded is body compressed as enc names (gzip, br, deflate), else body.
func encoded(body []byte, enc string) []byte {
	switch name := encodingName(enc); {
	case isGzip(name):
		return gzipped(body)
	case name == "br":
		return brotlied(body)
	case name == "deflate":
		var z bytes.Buffer
		zw := zlib.NewWriter(&z) // HTTP's deflate is the zlib format
		zw.Write(body)
		zw.Close()
		return z.Bytes()
	}
	return body
}

// FuzzDecodeBody: identity gives the body back, gzip and br undo
// themselves whatever the case and spacing of their names, any other
// encoding is an error, and arbitrary bytes never give more than maxBody.
func FuzzDecodeBody(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, enc string) {
		got, err := decodeBody(body, enc, maxBody)
		if again, err2 := decodeBody(body, enc, maxBody); !bytes.Equal(again, got) || (err == nil) != (err2 == nil) {
			t.Fatal("the same body decoded twice differs")
		}
		if err == nil && len(got) > maxBody {
			t.Fatalf("%d bytes decoded", len(got))
		}
		switch {
		case isGzip(enc):
			if back, err := decodeBody(gzipped(body), enc, maxBody); err != nil || !bytes.Equal(back, body) {
				t.Fatalf("gzip round trip: %v, %q", err, back)
			}
		case encodingName(enc) == "br":
			if back, err := decodeBody(brotlied(body), enc, maxBody); err != nil || !bytes.Equal(back, body) {
				t.Fatalf("br round trip: %v, %q", err, back)
			}
		case encodingName(enc) == "" || encodingName(enc) == "identity":
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("identity changed the body: %v", err)
			}
		case err == nil:
			t.Fatalf("content-encoding %q decoded", enc)
		}
	})
}

// FuzzErrorMessage: the message is short, UTF-8 and deterministic, and
// the error shapes servers use all give the same message for one text.
func FuzzErrorMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		msg := errorMessage(raw)
		if errorMessage(raw) != msg || len(msg) > 300+len("…") || !utf8.ValidString(msg) {
			t.Fatalf("%q from %q", msg, raw)
		}
		quoted, _ := json.Marshal(string(raw))
		var text string
		json.Unmarshal(quoted, &text)
		want := clip(withoutInput(text))
		for _, shape := range []string{`%s`, `{"error":{"message":%s,"code":400}}`, `{"error":%s}`,
			`{"object":"error","message":%s}`, `{"detail":%s}`} {
			in := fmt.Sprintf(shape, quoted)
			if got := errorMessage([]byte(in)); got != want {
				t.Fatalf("%s: %q, want %q", in, got, want)
			}
		}
	})
}
