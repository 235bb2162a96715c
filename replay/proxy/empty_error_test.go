package proxy

import "testing"

// An error the server reports without a message is still an error, as the
// load generator's client records it (stream_error): the row must fail.
func TestSSEParserSeesErrorsWithoutAMessage(t *testing.T) {
	for name, stream := range map[string]string{
		"error object, no message": `data: {"object":"error","code":500}` + "\n\n",
		"error, empty message":     `data: {"error":{"message":""}}` + "\n\n",
		"error, empty string":      `data: {"error":""}` + "\n\n",
		"error event, empty data":  "event: error\ndata:\n\n",
	} {
		o := observation{firstOut: -1, lastOut: -1}
		p := newSSEParser(&o)
		p.feed([]byte(`data: {"choices":[{"delta":{"content":"Hi"}}]}`+"\n\n"+stream+"data: [DONE]\n\n"), 5)
		p.end(5)
		if o.errMsg == "" {
			t.Errorf("%s: no error recorded", name)
		}
	}
}
