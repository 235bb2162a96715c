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
