package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRenderPrompt(t *testing.T) {
	for name, tc := range map[string]struct{ body, want string }{
		"chat": {
			`{"messages":[{"role":"system","content":"be brief"},{"role":"user","name":"ann","content":[{"type":"text","text":"look: "},{"type":"image_url","image_url":{"url":"http://x/y.png"}}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function"}]},{"role":"tool","tool_call_id":"c1","content":"42"}]}`,
			"<|system|>\nbe brief\n<|user:ann|>\nlook: <image_url>{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://x/y.png\"}}\n<|assistant|>\n<tool_calls>[{\"id\":\"c1\",\"type\":\"function\"}]\n<|tool|>\n42<tool_call_id>c1\n",
		},
		"tools":        {`{"tools":[ {"type":"function"} ],"messages":[{"role":"user","content":"hi"}]}`, "<|tools|>\n[{\"type\":\"function\"}]\n<|user|>\nhi\n"},
		"prompt":       {`{"prompt":"once"}`, "once"},
		"prompts":      {`{"prompt":["a","b"]}`, "a\nb"},
		"empty":        {`{"model":"m"}`, ""},
		"odd messages": {`{"messages":{"x":1}}`, `{"x":1}`},
	} {
		var r apiRequest
		if err := json.Unmarshal([]byte(tc.body), &r); err != nil {
			t.Fatal(err)
		}
		if got := string(renderPrompt(&r).text); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, tc.want)
		}
	}
	var r apiRequest
	json.Unmarshal([]byte(`{"prompt":[[1,2],[3]]}`), &r)
	if got := renderPrompt(&r).tokens; !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Errorf("token prompt: %v", got)
	}
}

// Clients escape JSON differently (Python's json.dumps writes é as
// \u00e9; Go's encoder writes & as \u0026): one value must render, and
// hash, the same however it was escaped or spaced.
func TestRenderPromptIgnoresJSONEscapes(t *testing.T) {
	render := func(body string) string {
		var r apiRequest
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		return string(renderPrompt(&r).text)
	}
	const want = "<|tools|>\n[{\"name\":\"café & bar\",\"url\":\"a/b<c>\",\"n\":1.50,\"x\":[true,null,{}]}]\n<|user|>\nhi\n"
	for _, tools := range []string{
		`[{"name":"café & bar","url":"a/b<c>","n":1.50,"x":[true,null,{}]}]`,
		`[ {"name": "caf\u00e9 \u0026 bar", "url": "a\/b\u003cc\u003e", "n": 1.50, "x": [ true, null, { } ] } ]`,
	} {
		if got := render(`{"tools":` + tools + `,"messages":[{"role":"user","content":"hi"}]}`); got != want {
			t.Errorf("tools %s:\n got %q\nwant %q", tools, got, want)
		}
	}
	// Key order and number literals are the client's: a reordered or
	// rewritten value is another prompt.
	if got := render(`{"tools":[{"url":"a/b<c>","name":"café & bar","n":1.50,"x":[true,null,{}]}],"messages":[{"role":"user","content":"hi"}]}`); got == want {
		t.Error("reordered keys rendered the same")
	}
	if got := render(`{"tools":[{"name":"café & bar","url":"a/b<c>","n":1.5,"x":[true,null,{}]}],"messages":[{"role":"user","content":"hi"}]}`); got == want {
		t.Error("1.5 rendered as 1.50")
	}
}

// decodeOne decodes exactly one JSON value, numbers as their literals.
func decodeOne(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the value (%v)", err)
	}
	return v, nil
}

// FuzzWriteJSON: valid JSON is written as one compact value equal to the
// input, which writeJSON leaves as it is, however its strings are escaped;
// anything else is written as it came. Seeds: testdata/fuzz/FuzzWriteJSON.
func FuzzWriteJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		var b bytes.Buffer
		b.WriteString("prefix")
		writeJSON(&b, raw)
		out, ok := bytes.CutPrefix(b.Bytes(), []byte("prefix"))
		if !ok {
			t.Fatal("the buffer's earlier bytes were changed")
		}
		in, err := decodeOne(raw)
		if err != nil {
			if !bytes.Equal(out, raw) {
				t.Fatalf("invalid JSON %q written as %q", raw, out)
			}
			return
		}
		if got, err := decodeOne(out); err != nil || !reflect.DeepEqual(got, in) {
			t.Fatalf("%q written as %q (%v)", raw, out, err)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, out) != nil || !bytes.Equal(compact.Bytes(), out) {
			t.Fatalf("%q written as %q: not compact", raw, out)
		}
		var again bytes.Buffer
		if writeJSON(&again, out); !bytes.Equal(again.Bytes(), out) {
			t.Fatalf("%q written as %q, then as %q", raw, out, again.Bytes())
		}
		// Escaped another way (& < > U+2028 U+2029 as \uXXXX), the same.
		var escaped, other bytes.Buffer
		json.HTMLEscape(&escaped, out)
		if writeJSON(&other, escaped.Bytes()); !bytes.Equal(other.Bytes(), out) {
			t.Fatalf("%q written as %q, but %q as %q", raw, out, escaped.Bytes(), other.Bytes())
		}
	})
}

func TestPrefixHashes(t *testing.T) {
	a := []byte("aaaabbbbccccdd")
	b := []byte("aaaabbbbxxxxdd")
	ha, hb := PrefixHashes(a, 4), PrefixHashes(b, 4)
	if len(ha) != 4 || len(hb) != 4 {
		t.Fatalf("want ceil(14/4) = 4 hashes, got %d, %d", len(ha), len(hb))
	}
	if ha[0] != hb[0] || ha[1] != hb[1] {
		t.Error("equal prefixes, different hashes")
	}
	if ha[2] == hb[2] || ha[3] == hb[3] {
		t.Error("a hash does not cover its whole prefix: the last blocks are equal but follow different ones")
	}
	// Chained: equal blocks at the same position after different prefixes differ.
	if x, y := PrefixHashes([]byte("1111zzzz"), 4), PrefixHashes([]byte("2222zzzz"), 4); x[1] == y[1] {
		t.Error("not chained")
	}
	if PrefixHashes(nil, 4) == nil || len(PrefixHashes(nil, 4)) != 0 {
		t.Error("empty prompt: want an empty, non-nil list")
	}
	if !reflect.DeepEqual(PrefixHashes(a, 4), ha) {
		t.Error("not deterministic")
	}
}

// FuzzPrefixHashes: ceil(len/size) hashes, equal exactly for the blocks
// of a common prefix, and a prompt's whole blocks hash the same when
// anything follows. Seeds: testdata/fuzz/FuzzPrefixHashes.
func FuzzPrefixHashes(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b []byte, size uint8) {
		n := int(size%16) + 1
		ha, hb := PrefixHashes(a, n), PrefixHashes(b, n)
		if len(ha) != (len(a)+n-1)/n {
			t.Fatalf("%d hashes for %d bytes in blocks of %d", len(ha), len(a), n)
		}
		if hab := PrefixHashes(append(a[:len(a):len(a)], b...), n); !reflect.DeepEqual(hab[:len(a)/n], ha[:len(a)/n]) {
			t.Fatalf("appending changed the hashes of the whole blocks before it")
		}
		common := 0
		for common < len(a) && common < len(b) && a[common] == b[common] {
			common++
		}
		full := common / n // blocks wholly inside the common prefix
		for i := 0; i < len(ha) && i < len(hb); i++ {
			if (ha[i] == hb[i]) != (i < full || (i == full && len(a) == len(b) && common == len(a))) {
				// Only a hash collision could make this fail.
				t.Fatalf("block %d: equal=%v, common prefix %d bytes, size %d", i, ha[i] == hb[i], common, n)
			}
		}
	})
}

func TestSSEParserIgnoresReadBoundaries(t *testing.T) {
	stream := []byte(": keep-alive\r\n\r\n" +
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n" +
		"event: message\ndata: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\n" +
		"data: [DONE]")
	whole := observation{firstOut: -1, lastOut: -1}
	p := newSSEParser(&whole)
	p.feed(stream, 5)
	p.end(5)
	for step := 1; step < 7; step++ {
		o := observation{firstOut: -1, lastOut: -1}
		q := newSSEParser(&o)
		for i := 0; i < len(stream); i += step {
			q.feed(stream[i:min(i+step, len(stream))], 5)
		}
		q.end(5)
		if o.chunks != whole.chunks || o.outBytes != whole.outBytes || o.finish != whole.finish || !o.sawDone || *o.usage.CompletionTokens != 3 {
			t.Errorf("step %d: %+v", step, o)
		}
	}
	if whole.chunks != 3 || whole.outBytes != 8 || whole.finish != "stop" || *whole.usage.PromptTokens != 7 || whole.parseFailed {
		t.Errorf("whole: %+v", whole)
	}
}

// A stream that reports an error inside a 200 response, as vLLM does
// ({"object":"error",...}) or as an SSE event named error, makes the row a
// failure, as the load generator's client records it.
func TestSSEParserSeesErrorsInTheStream(t *testing.T) {
	for name, tc := range map[string]struct{ stream, want string }{
		"error field":       {`data: {"error":{"message":"out of memory"}}` + "\n\n", "out of memory"},
		"error object":      {`data: {"object":"error","message":"too long","type":"BadRequestError","code":400}` + "\n\n", "too long"},
		"error event":       {"event: error\ndata: {\"message\":\"engine died\"}\n\n", "engine died"},
		"error event, text": {"event: error\ndata: overloaded\n\n", "overloaded"},
	} {
		o := observation{firstOut: -1, lastOut: -1}
		p := newSSEParser(&o)
		p.feed([]byte(`data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n"+tc.stream+"data: [DONE]\n\n"), 5)
		p.end(5)
		if o.errMsg != tc.want || o.chunks != 1 {
			t.Errorf("%s: error %q, chunks %d; want %q, 1", name, o.errMsg, o.chunks, tc.want)
		}
	}
	// An event of another name is data like any other.
	o := observation{firstOut: -1, lastOut: -1}
	p := newSSEParser(&o)
	p.feed([]byte("event: message\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"), 5)
	if o.errMsg != "" || o.chunks != 1 {
		t.Errorf("message event: error %q, chunks %d", o.errMsg, o.chunks)
	}
}

func TestErrorMessage(t *testing.T) {
	for in, want := range map[string]string{
		`{"error":{"message":"too long","code":400}}`: "too long",
		`{"error":"overloaded"}`:                      "overloaded",
		`{"detail":"Not Found"}`:                      "Not Found",
		`{"object":"error","message":"bad model"}`:    "bad model",
		`upstream connect error`:                      "upstream connect error",
		`{"foo":1}`:                                   `{"foo":1}`,
		// Validation errors echo the request under "input": no prompt text
		// reaches the trace (FastAPI's detail list; vLLM's Python repr).
		`{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":{"messages":[{"role":"user","content":"PRIVATE"}]}}]}`:                                            `[{"loc":["body","model"],"msg":"Field required","type":"missing"}]`,
		`{"object":"error","message":"[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required', 'input': {'messages': [{'role': 'user', 'content': 'PRIVATE'}]}}]","code":400}`: `[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required' …`,
	} {
		if got := errorMessage([]byte(in)); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	long := bytes.Repeat([]byte("é"), 400)
	if got := errorMessage(long); len(got) > 304 {
		t.Errorf("not clipped: %d bytes", len(got))
	}
}

// An error page in another charset is recorded as UTF-8, as trace strings
// are: JSONL would rewrite the bytes, Arrow and Parquet would hold them
// invalid.
func TestErrorMessageIsUTF8(t *testing.T) {
	if got := errorMessage([]byte("Service indisponible: caf\xe9\n")); got != "Service indisponible: caf\uFFFD" {
		t.Errorf("got %q", got)
	}
	if got := clip(strings.Repeat("a", 299) + "\xff\xfe"); !utf8.ValidString(got) {
		t.Errorf("clipped to %q", got)
	}
}

func TestGzipResponseIsParsed(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	payload := `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`
	zw.Write([]byte(payload))
	zw.Close()
	got, err := decodeBody(z.Bytes(), "gzip", maxBody)
	if err != nil {
		t.Fatal(err)
	}
	var r apiResponse
	if err := json.Unmarshal(got, &r); err != nil || *r.Usage.PromptTokens != 3 {
		t.Fatalf("%v %s", err, got)
	}
	if _, err := decodeBody([]byte("x"), "zstd", maxBody); err == nil {
		t.Error("zstd decoded")
	}
	// A body that decodes past the limit is an error, never read cut short
	// as a shorter body; one that decodes to the limit is read whole.
	if got, err := decodeBody(z.Bytes(), "gzip", 20); err == nil {
		t.Errorf("decoded to %d bytes past a limit of 20: %q", len(got), got)
	}
	if got, err := decodeBody(z.Bytes(), "gzip", int64(len(payload))); err != nil || string(got) != payload {
		t.Errorf("decoded to the limit: %d bytes, %v", len(got), err)
	}
}

// A [DONE] padded with white space ends the stream here as in the load
// generator's client: both follow sse.IsDone.
func TestSSEParserPaddedDone(t *testing.T) {
	for _, done := range []string{"data: [DONE]  \n\n", "data: [DONE]\t\r\n\r\n", "data:[DONE] "} {
		o := observation{firstOut: -1, lastOut: -1}
		p := newSSEParser(&o)
		p.feed([]byte(`data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n"+done), 5)
		p.end(5)
		if !o.sawDone || o.parseFailed || o.chunks != 1 {
			t.Errorf("%q: done %v, parse failed %v, chunks %d", done, o.sawDone, o.parseFailed, o.chunks)
		}
	}
}
