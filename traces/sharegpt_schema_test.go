package traces

import (
	"strings"
	"testing"
)

// A JSON array whose conversations are in another schema (OpenAI-style
// "messages" with role/content, for one) holds no ShareGPT turn at all:
// it is refused, not imported as an empty trace.
func TestShareGPTOtherSchemaIsRefused(t *testing.T) {
	in := `[{"id": "a", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},
	{"id": "b", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}]`
	rows, err := importStringErr(FormatShareGPT, in, ImportOptions{Name: "chat.json", Rate: 1})
	if err == nil {
		t.Fatalf("imported %d requests and no error, want an error", len(rows))
	}
	for _, want := range []string{"chat.json", "2 conversations", `"from"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	// An empty array is a trace of no conversations, not another schema.
	if rows, err := importStringErr(FormatShareGPT, "[]", ImportOptions{Rate: 1}); err != nil || len(rows) != 0 {
		t.Errorf("[]: %d rows, %v; want none and no error", len(rows), err)
	}
}
