package replay

import (
	"strings"
	"testing"
)

// A JSON settings file that does not parse is refused naming the line and
// column where it breaks, and a syntax error that mentions an "object key"
// is not taken for an API key given in the file.
func TestJSONSettingsSyntaxErrorNamesLine(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n\"model\": \"m\",\n}", "line 3, column 1: invalid character '}'"},
		{"{\n\"model\": \"m\" \"timeout\": \"5s\"}", "line 2, column 14: invalid character '\"'"},
		{"{\n  \"model\": tru}", `"model": line 2, column 15: invalid character '}'`},
		{"{\n\"model\": \"m\"\n", "line 2, column 13: unexpected end of JSON input"},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), "s.json", &cfg)
		if err == nil || !strings.Contains(err.Error(), "settings s.json: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming s.json and %q", tc.data, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "API key") {
			t.Errorf("%q: a syntax error points at the API key: %v", tc.data, err)
		}
	}
}

// An error about a key inside text_model names that key with its parent,
// and a value of the wrong type is told what it must be in words, not by
// the name of an internal type.
func TestJSONSettingsErrorNamesNestedKey(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"text_model":{"tokens_per_byte":"x"}}`, `"text_model.tokens_per_byte": want a number, got JSON string`},
		{`{"concurrency":1.5}`, `"concurrency": want an integer, got JSON number 1.5`},
		{`{"keep_text":"yes"}`, `"keep_text": want true or false, got JSON string`},
		{`{"model":4}`, `"model": want a string, got JSON number`},
		{`{"endpoint":1}`, `"endpoint": want "chat" or "completions", got JSON number`},
		{`{"arrival":true}`, `"arrival": want "open" or "closed", got JSON bool`},
		{`{"text_model":{"bogus":1}}`, `unknown key "text_model.bogus"`},
		{"{\n\"bogus\":1}", `line 2: unknown key "bogus"`}, // as TOML says it, not the decoder's "unknown field"
		{`{"timeout":5}`, `"timeout": want a duration such as "30s", got JSON number`},
		{`{"prompt_salt":-1}`, `"prompt_salt": want an integer ≥ 0, got JSON number -1`},
		{`{"slo":{"ttft":"2s"}}`, `"slo": want limits such as "ttft=2s,tpot=50ms,e2e=30s", got JSON object`},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), "s.json", &cfg)
		if err == nil || !strings.Contains(err.Error(), "settings s.json: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming s.json and %q", tc.data, err, tc.want)
		}
	}
}
