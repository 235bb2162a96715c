package proxy

import (
	"strings"
	"testing"
)

// llama.cpp's server sends a streaming error as an "error:" line before
// data: [DONE]: the row records it as the server's error, with its message.
func TestSSEParserSeesLlamaCppErrorLine(t *testing.T) {
	o := observation{firstOut: -1, lastOut: -1}
	p := newSSEParser(&o)
	p.feed([]byte(`data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n"+
		`error: {"code":500,"message":"slot failed to decode","type":"server_error"}`+"\n\ndata: [DONE]\n\n"), 5)
	p.end(5)
	if !strings.Contains(o.errMsg, "slot failed to decode") {
		t.Errorf("error %q, want the server's message", o.errMsg)
	}
}
