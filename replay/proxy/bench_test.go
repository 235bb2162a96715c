package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// agentRequest is a tool-using chat request of the size agents send: 12
// function tools with JSON-schema parameters (about 5 KB) and 20 messages,
// every third an assistant tool call.
func agentRequest() []byte {
	var tools []map[string]any
	for i := range 12 {
		props := map[string]any{}
		for j := range 6 {
			props[fmt.Sprintf("arg_%d", j)] = map[string]any{"type": "string", "description": fmt.Sprintf("argument %d of tool %d: a path, a query or an id & its options", j, i)}
		}
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": fmt.Sprintf("tool_%d", i), "description": strings.Repeat("Does one thing well. ", 4),
			"parameters": map[string]any{"type": "object", "properties": props, "required": []string{"arg_0"}},
		}})
	}
	var msgs []map[string]any
	for i := range 20 {
		switch i % 3 {
		case 0:
			msgs = append(msgs, map[string]any{"role": "user", "content": strings.Repeat("please look at <this> & that. ", 8)})
		case 1:
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
				"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": "tool_1", "arguments": `{"arg_0":"/srv/data?x=1&y=2"}`},
			}}})
		default:
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d", i-1), "content": strings.Repeat("result line\n", 10)})
		}
	}
	body, err := json.Marshal(map[string]any{"model": "m", "tools": tools, "messages": msgs, "stream": true})
	if err != nil {
		panic(err)
	}
	return body
}

// BenchmarkRenderPrompt: what the proxy does with a request body before it
// forwards it (decode, render, hash).
func BenchmarkRenderPrompt(b *testing.B) {
	body := agentRequest()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r apiRequest
		if err := json.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
		PrefixHashes(renderPrompt(&r).text, 64)
	}
}
