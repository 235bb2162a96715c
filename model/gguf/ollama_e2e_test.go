package gguf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestOllamaE2E talks to a real engine serving the model written by
// WriteLlama (start one with `scripts/engine.sh start`):
//
//	SERVESIM_ENGINE_URL=http://127.0.0.1:11435/v1 SERVESIM_ENGINE_MODEL=servesim-tiny go test ./model/gguf -run E2E -v
//
// It checks the properties the simulator relies on: prompt tokens are
// exactly UTF-8 bytes + OllamaChatOverhead (ChatPromptTokens for several
// messages), and generation never stops before max_tokens, also when greedy
// (the model cannot sample EOS or repeat a token; see the package doc).
func TestOllamaE2E(t *testing.T) {
	base, model := os.Getenv("SERVESIM_ENGINE_URL"), os.Getenv("SERVESIM_ENGINE_MODEL")
	if base == "" || model == "" {
		msg := "set SERVESIM_ENGINE_URL (e.g. http://127.0.0.1:11435/v1) and SERVESIM_ENGINE_MODEL (e.g. servesim-tiny) to run against a real engine; scripts/engine.sh start prints both"
		// CI (CI=true) starts the engine before the live tests: a missing
		// one there is a broken run, not one to skip.
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	user := func(s string) []ChatMessage { return []ChatMessage{{"user", s}} }
	for _, c := range []struct {
		msgs      []ChatMessage
		maxTokens int
		greedy    bool
	}{
		{user("Hi"), 16, false},
		{user("Hello, wörld! 😀 — tokens are bytes here."), 16, false},
		{user(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 12)[:500]), 16, false},
		{[]ChatMessage{{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Yo"}, {"user", "Again"}}, 16, false},
		// Greedy decoding past Ollama's 30-identical-tokens abort limit.
		{user("Hi"), 64, true},
	} {
		maxTokens := c.maxTokens
		usage, content := streamChat(t, base, model, c.msgs, maxTokens, c.greedy)
		want := ChatPromptTokens(c.msgs)
		if len(c.msgs) == 1 && want != len(c.msgs[0].Content)+OllamaChatOverhead {
			t.Fatalf("ChatPromptTokens disagrees with OllamaChatOverhead")
		}
		if usage.PromptTokens != want {
			t.Errorf("%v: prompt_tokens = %d, want %d", c.msgs, usage.PromptTokens, want)
		}
		if usage.CompletionTokens != maxTokens {
			t.Errorf("completion_tokens = %d, want %d", usage.CompletionTokens, maxTokens)
		}
		// Only filler words (" " + letters) can be sampled.
		if words := strings.Fields(content); len(words) != maxTokens {
			t.Errorf("content %q has %d words, want %d", content, len(words), maxTokens)
		}
	}
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// streamChat sends one streaming chat completion (greedy: temperature 0)
// and returns the usage from the final chunk and the concatenated content.
func streamChat(t *testing.T, base, model string, msgs []ChatMessage, maxTokens int, greedy bool) (usage, string) {
	t.Helper()
	var messages []map[string]string
	for _, m := range msgs {
		messages = append(messages, map[string]string{"role": m.Role, "content": m.Content})
	}
	req := map[string]any{
		"model":          model,
		"messages":       messages,
		"max_tokens":     maxTokens,
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
	}
	if greedy {
		req["temperature"] = 0
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Post(strings.TrimSuffix(base, "/")+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	var (
		content strings.Builder
		u       *usage
		done    bool
	)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("bad chunk %q: %v", data, err)
		}
		for _, c := range chunk.Choices {
			content.WriteString(c.Delta.Content)
		}
		if chunk.Usage != nil {
			u = chunk.Usage
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !done {
		t.Fatal("stream ended without [DONE]")
	}
	if u == nil {
		t.Fatal("no usage chunk despite stream_options.include_usage")
	}
	return *u, content.String()
}
