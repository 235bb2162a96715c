package traces

import (
	"strings"
	"testing"
)

// A ShareGPT error names the line and column of its offset: a byte
// offset alone is hard to find in a file of long conversations.
func TestShareGPTErrorsNameLineAndColumn(t *testing.T) {
	const conv = `  {"id": "a", "conversations": [{"from": "human", "value": "x"}, {"from": "gpt", "value": "y"}]}`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"bad conversation", "[\n" + conv + ",\n" + `  {"id": 5, "conversations": "no"}` + "\n]\n",
			`in.json:3:35: offset 134 (conversation 2)`},
		// The decoder stops at the conversation's start; the error is
		// three lines into it.
		{"syntax error inside a conversation", "[\n" + conv + ",\n" + conv + ",\n  {\"id\": \"c\",\n   \"conversations\": [\n" +
			`    {"from": "human", "value": "x"},` + "\n" + `    {"from": "gpt" "value": "y"}` + "\n  ]}\n]\n",
			`in.json:7:20: offset 290 (conversation 3)`},
		{"missing comma before a bad conversation", "[\n" + conv + "\n" + `  {"id" 5}` + "\n]\n",
			`in.json:3:3: offset 101 (conversation 2): want {"id", "conversations": [{"from", "value"}]}: expected comma`},
		{"bom and trailing garbage", "\ufeff[\n" + conv + "\n]\nx\n",
			`in.json:4:1: offset 101: want the end of input`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := importErr(t, "in.json", tc.body, ImportOptions{Rate: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
