package proxy

import (
	"encoding/json"
	"math"
	"strings"
)

// echoStrip finds the echoed prompt at the front of each choice's text in
// a response to a request with echo: on completions the choice's prompt,
// on chat the last message's content (vLLM's chat echo); text the server
// did not generate, so neither output to estimate nor tokens to time. A
// prompt of token ids is not known as text, and its echo is not found.
type echoStrip struct {
	prompts   []string       // the request's text prompts, in order
	perPrompt int            // choices per prompt (n)
	left      map[int]string // per choice index, the part of its prompt not yet seen
	past      map[int]bool   // choices whose text went past their prompt, or did not start with it
	bytes     int64          // echoed bytes seen, all choices together
}

// newEchoStrip returns the strip for a request with echo on endpoint: a
// chat whose last message has text content, or a completions request whose
// prompt is a string or a list of strings; else nil.
func newEchoStrip(r *apiRequest, endpoint string) *echoStrip {
	switch {
	case !r.Echo:
		return nil
	case endpoint == "chat":
		return newChatEchoStrip(r)
	case endpoint != "completions":
		return nil
	}
	var prompts []string
	var one string
	if json.Unmarshal(r.Prompt, &one) == nil {
		prompts = []string{one}
	} else if json.Unmarshal(r.Prompt, &prompts) != nil || len(prompts) == 0 {
		return nil
	}
	return &echoStrip{prompts: prompts, perPrompt: r.choicesPerPrompt(), left: map[int]string{}, past: map[int]bool{}}
}

// choicesPerPrompt is the request's n, the choices a server returns for
// each prompt; 1 where it is absent or out of range.
func (r *apiRequest) choicesPerPrompt() int {
	if r.N != nil && *r.N > 1 && *r.N <= 1<<20 {
		return int(*r.N)
	}
	return 1
}

// echoedTokens is how many tokens a completions echo of a token-id prompt
// puts in front of the output: the prompt's ids, once for each of its
// choices. Its text is not known, so its size is taken from the ids.
func (ex *exchange) echoedTokens() int64 {
	if !ex.req.Echo || ex.endpoint != "completions" || ex.prompt.tokens == nil {
		return 0
	}
	return saturatingMul(int64(len(ex.prompt.tokens)), int64(ex.req.choicesPerPrompt()))
}

// newChatEchoStrip returns the strip for a chat: every choice echoes the
// last message's content, its text parts joined by newlines as vLLM joins
// them, where that message is in the response's role (assistant, or any
// with add_generation_prompt false); nil when nothing is echoed.
func newChatEchoStrip(r *apiRequest) *echoStrip {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(r.Messages, &msgs) != nil || len(msgs) == 0 {
		return nil
	}
	generationPrompt := r.AddGenerationPrompt == nil || *r.AddGenerationPrompt
	if generationPrompt && msgs[len(msgs)-1].Role != "assistant" {
		return nil
	}
	last := msgs[len(msgs)-1].Content
	var text string
	if json.Unmarshal(last, &text) != nil {
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(last, &parts) != nil {
			return nil
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		text = strings.Join(texts, "\n")
	}
	if text == "" {
		return nil
	}
	return &echoStrip{prompts: []string{text}, perPrompt: math.MaxInt, left: map[int]string{}, past: map[int]bool{}}
}

// echoed is how many of the leading bytes of text, the next text of the
// choice at index, are its prompt's echo. A server numbers a batch's
// choices prompt by prompt, n each. Text that parts from the prompt ends
// the echo: what follows is generated.
func (e *echoStrip) echoed(index int, text string) int {
	if e == nil || e.past[index] {
		return 0
	}
	left, seen := e.left[index]
	if !seen {
		if index < 0 || index/e.perPrompt >= len(e.prompts) {
			e.past[index] = true
			return 0
		}
		left = e.prompts[index/e.perPrompt]
	}
	n := 0
	switch {
	case strings.HasPrefix(text, left):
		n = len(left)
		e.past[index] = true
		delete(e.left, index)
	case strings.HasPrefix(left, text):
		// A stream may split the echo over chunks.
		n = len(text)
		e.left[index] = left[n:]
	default:
		e.past[index] = true
		delete(e.left, index)
	}
	e.bytes += int64(n)
	return n
}

// echoedBytes is how many echoed bytes the response carried.
func (e *echoStrip) echoedBytes() int64 {
	if e == nil {
		return 0
	}
	return e.bytes
}
