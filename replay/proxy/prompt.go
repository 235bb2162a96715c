package proxy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// apiRequest is the part of an OpenAI-compatible request body the proxy
// reads. Unknown fields are ignored; the body itself is forwarded as is.
type apiRequest struct {
	Model         string          `json:"model"`
	Messages      json.RawMessage `json:"messages"`
	Tools         json.RawMessage `json:"tools"`
	Prompt        json.RawMessage `json:"prompt"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int64 `json:"max_tokens"`
	MaxCompletionTokens *int64 `json:"max_completion_tokens"`
	N                   *int64 `json:"n"`       // choices, each capped by maxTokens
	BestOf              *int64 `json:"best_of"` // candidates generated (completions), each capped too
	// Echo prepends the prompt to the output (vLLM's chat echoes the last
	// message): text no server generated, and which some count.
	Echo bool `json:"echo"`
	// AddGenerationPrompt false (vLLM, default true) continues the last
	// message in its own role, which a chat echo then repeats.
	AddGenerationPrompt *bool `json:"add_generation_prompt"`
}

// maxTokens is the request's output cap on endpoint ("chat" or
// "completions", as endpointOf names them), or -1. Chat takes
// max_completion_tokens, else the max_tokens it replaced. Completions
// defines max_tokens alone; a max_completion_tokens sent there too only
// loosens the cap, as a server may honour either (vLLM reads it from any
// request), and without max_tokens the cap is the server's default,
// unknown here.
func (r *apiRequest) maxTokens(endpoint string) int64 {
	limit, newer := capOf(r.MaxTokens), capOf(r.MaxCompletionTokens)
	switch {
	case endpoint == "completions" && limit >= 0:
		return max(limit, newer)
	case endpoint == "completions":
		return -1
	case newer >= 0:
		return newer
	}
	return limit
}

// capOf is a cap field's value, or -1 when it is absent, null, or not
// positive: vLLM reads 0 as unset (max_completion_tokens 0 falls back to
// max_tokens), and a server that answered a cap of 0 with output did not
// honour it as one.
func capOf(v *int64) int64 {
	if v == nil || *v <= 0 {
		return -1
	}
	return *v
}

// outputCap is the most completion tokens a usage block may report for
// the request on endpoint: generationCap, or -1 for no cap. An echoed
// prompt may count in completion_tokens, so an echo request has none.
func (r *apiRequest) outputCap(endpoint string) int64 {
	if r.Echo {
		return -1
	}
	return r.generationCap(endpoint)
}

// generationCap is the most tokens the request can generate on endpoint
// over all the sequences it asks for (n choices, or best_of candidates,
// which a server may count too, for each prompt a completions request
// batches), or -1 for no cap.
func (r *apiRequest) generationCap(endpoint string) int64 {
	limit, seqs := r.maxTokens(endpoint), int64(1)
	for _, v := range []*int64{r.N, r.BestOf} {
		if v != nil {
			seqs = max(seqs, *v)
		}
	}
	if limit < 0 {
		return limit
	}
	return saturatingMul(saturatingMul(limit, seqs), r.promptCount())
}

// promptCount is how many prompts the request batches: a completions
// prompt that is a list of strings or of token-id lists has one choice set
// per element; anything else (a string, one list of token ids, a chat) is
// one prompt.
func (r *apiRequest) promptCount() int64 {
	var batch []json.RawMessage
	if len(r.Messages) > 0 && !isNull(r.Messages) || json.Unmarshal(r.Prompt, &batch) != nil || len(batch) == 0 {
		return 1
	}
	if first := bytes.TrimSpace(batch[0]); len(first) > 0 && (first[0] == '"' || first[0] == '[') {
		return int64(len(batch))
	}
	return 1
}

// saturatingMul is a × b for non-negative a and positive b, MaxInt64 where
// that overflows.
func saturatingMul(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// promptText is a prompt rendered for hashing: either canonical text
// (sizes estimated from bytes) or the token ids the client sent (exact).
type promptText struct {
	text   []byte
	tokens []int64 // non-nil when the client sent token ids
}

// renderPrompt turns a chat or completions request into one canonical
// byte string. For chat: the tools (if any) as "<|tools|>\n" + their JSON
// + "\n", then per message "<|" + role [":" + name] + "|>\n" + content +
// "\n", where content is the text, the text parts in order, and non-text
// parts and tool calls as "<type>" + their JSON (see writeJSON). For
// completions: the prompt string, or several joined by "\n", or the token
// ids.
//
// Two requests whose conversations agree up to some message render to
// byte strings that agree up to the same point, which is what prefix
// hashing needs.
func renderPrompt(r *apiRequest) promptText {
	var b bytes.Buffer
	if len(r.Messages) > 0 && !isNull(r.Messages) {
		if len(r.Tools) > 0 && !isNull(r.Tools) {
			b.WriteString("<|tools|>\n")
			writeJSON(&b, r.Tools)
			b.WriteByte('\n')
		}
		var msgs []struct {
			Role       string          `json:"role"`
			Name       string          `json:"name"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  json.RawMessage `json:"tool_calls"`
			ToolCallID string          `json:"tool_call_id"`
		}
		if err := json.Unmarshal(r.Messages, &msgs); err != nil {
			// Not a list of messages: hash the raw JSON.
			writeJSON(&b, r.Messages)
			return promptText{text: b.Bytes()}
		}
		for _, m := range msgs {
			b.WriteString("<|" + m.Role)
			if m.Name != "" {
				b.WriteString(":" + m.Name)
			}
			b.WriteString("|>\n")
			writeContent(&b, m.Content)
			if len(m.ToolCalls) > 0 && !isNull(m.ToolCalls) {
				b.WriteString("<tool_calls>")
				writeJSON(&b, m.ToolCalls)
			}
			if m.ToolCallID != "" {
				b.WriteString("<tool_call_id>" + m.ToolCallID)
			}
			b.WriteByte('\n')
		}
		return promptText{text: b.Bytes()}
	}
	if len(r.Prompt) == 0 || isNull(r.Prompt) {
		return promptText{}
	}
	var s string
	if json.Unmarshal(r.Prompt, &s) == nil {
		return promptText{text: []byte(s)}
	}
	var ss []string
	if json.Unmarshal(r.Prompt, &ss) == nil {
		return promptText{text: bytes.Join(toBytes(ss), []byte{'\n'})}
	}
	var ids []int64
	if json.Unmarshal(r.Prompt, &ids) == nil {
		return promptText{tokens: nonNil(ids)}
	}
	var idss [][]int64
	if json.Unmarshal(r.Prompt, &idss) == nil {
		ids = []int64{}
		for _, x := range idss {
			ids = append(ids, x...)
		}
		return promptText{tokens: ids}
	}
	writeJSON(&b, r.Prompt)
	return promptText{text: b.Bytes()}
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// writeJSON writes raw compactly, each string escaped one way (as Go's
// encoder does, without HTML escapes), so that one value sent by clients
// that escape differently ("&" or "\u0026", "é" or "\u00e9") renders, and
// hashes, the same. Key order and number literals are kept; invalid JSON
// is written as it came.
func writeJSON(b *bytes.Buffer, raw json.RawMessage) {
	if !json.Valid(raw) {
		b.Write(raw)
		return
	}
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			n := stringLen(raw[i:])
			writeString(b, raw[i:i+n])
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
}

// stringLen is the length of the string literal, quotes included, that s
// (valid JSON) starts with.
func stringLen(s []byte) int {
	for i := 1; ; i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// writeString writes a valid string literal as Go's encoder would. Most
// need no work: no escapes, valid UTF-8, and no U+2028 or U+2029 (which
// the encoder escapes).
func writeString(b *bytes.Buffer, lit []byte) {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) &&
		!bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029")) {
		b.Write(lit)
		return
	}
	var s string
	json.Unmarshal(lit, &s) // cannot fail: lit is a valid literal
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode ends each value with a newline
}

// writeContent writes a message's content: a string, or a list of parts.
func writeContent(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 || isNull(raw) {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b.WriteString(s)
		return
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		writeJSON(b, raw)
		return
	}
	for _, p := range parts {
		var part struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(p, &part) == nil && part.Text != nil && (part.Type == "text" || part.Type == "") {
			b.WriteString(*part.Text)
			continue
		}
		b.WriteString("<" + part.Type + ">")
		writeJSON(b, p)
	}
}

// estimateTokens is ceil(n × tokensPerByte).
func estimateTokens(n int, tokensPerByte float64) int64 {
	return int64(math.Ceil(float64(n) * tokensPerByte))
}

// blockBytes is how many prompt bytes stand for blockSize tokens.
func blockBytes(blockSize int, tokensPerByte float64) int {
	return max(1, int(math.Round(float64(blockSize)/tokensPerByte)))
}

// PrefixHashes cuts a prompt into blocks and chains their hashes:
//
//	h[0] = xxhash64(8 zero bytes ‖ block[0])
//	h[i] = xxhash64(little-endian h[i-1] ‖ block[i])
//
// so two prompts that share their first k blocks share their first k
// hashes, and a hash names its whole prefix, not just its block. Blocks are
// size bytes of text; the last block may be shorter (like Mooncake's
// hash_ids, there are ceil(len/size) hashes). An empty prompt has none.
func PrefixHashes(text []byte, size int) []uint64 {
	if size <= 0 {
		return nil
	}
	out := make([]uint64, 0, (len(text)+size-1)/size)
	var prev [8]byte
	d := xxhash.New()
	for off := 0; off < len(text); off += size {
		d.Reset()
		d.Write(prev[:])
		d.Write(text[off:min(off+size, len(text))])
		h := d.Sum64()
		out = append(out, h)
		binary.LittleEndian.PutUint64(prev[:], h)
	}
	return out
}

// tokenPrefixHashes is PrefixHashes over token ids (4 bytes each, little
// endian), blockSize ids per block: exact token blocks.
func tokenPrefixHashes(ids []int64, blockSize int) []uint64 {
	buf := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
	}
	return PrefixHashes(buf, 4*blockSize)
}
