package replay

import (
	"strings"
	"testing"
)

// A key given twice inside text_model is refused in JSON as it is at the
// top level and in TOML, instead of the last one silently winning.
func TestParseSettingsRefusesNestedDuplicate(t *testing.T) {
	for _, tc := range []struct{ path, data, want string }{
		{"s.json", `{"text_model":{"tokens_per_byte":1,"overhead":20,"overhead":30}}`, `"text_model.overhead": given twice (also as "overhead")`},
		{"s.json", `{"text_model":{"tokens_per_byte":1,"Prefix":2,"prefix":7,"overhead":20}}`, `"text_model.prefix": given twice (also as "Prefix")`},
		{"s.toml", "[text_model]\ntokens_per_byte = 1\noverhead = 20\noverhead = 30\n", "overhead"},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), tc.path, &cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v (text model %+v), want one naming %q", tc.path, tc.data, err, cfg.Text, tc.want)
		}
	}
	cfg := DefaultConfig()
	if err := parseSettings([]byte(`{"text_model":{"tokens_per_byte":1,"overhead":20,"prefix":7}}`), "s.json", &cfg); err != nil ||
		cfg.Text != (TextModel{TokensPerByte: 1, Overhead: 20, Prefix: 7}) {
		t.Errorf("text model %+v, %v", cfg.Text, err)
	}
}

// TOML matches keys to fields regardless of case, as JSON does: two
// spellings of one key are that key given twice, refused as JSON refuses
// them, instead of the last one silently winning.
func TestParseSettingsTOMLRefusesKeyInTwoCases(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"model = \"a\"\nModel = \"b\"\n", `"Model": given twice (also as "model")`},
		{"[text_model]\ntokens_per_byte = 1\noverhead = 20\nOverhead = 30\n", `"text_model.Overhead": given twice (also as "text_model.overhead")`},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), "s.toml", &cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.toml") {
			t.Errorf("%q: error %v (model %q, text %+v), want one naming s.toml and %q", tc.data, err, cfg.Model, cfg.Text, tc.want)
		}
	}
	cfg := DefaultConfig()
	if err := parseSettings([]byte("MODEL = \"a\"\n[Text_Model]\ntokens_per_byte = 1\n"), "s.toml", &cfg); err != nil || cfg.Model != "a" || cfg.Text.TokensPerByte != 1 {
		t.Errorf("keys in another case, once each: %v, model %q, text %+v", err, cfg.Model, cfg.Text)
	}
}

// Only a key that looks like an API key gets the hint that the key is
// read from the environment: in JSON every unknown key inside text_model
// got it, as the hint matched the "key" of the message "unknown key".
func TestParseSettingsKeyHintOnlyForKeys(t *testing.T) {
	const hint = "environment variable"
	for _, tc := range []struct {
		path, data, key string
		hint            bool
	}{
		{"s.json", `{"text_model":{"bogus":1}}`, "bogus", false},
		{"s.toml", "[text_model]\nbogus = 1\n", "bogus", false},
		{"s.json", `{"bogus":1}`, "bogus", false},
		{"s.toml", "tokens_per_byte = 1\n", "tokens_per_byte", false}, // text_model's, at the top
		{"s.json", `{"text_model":{"api_key":"x"}}`, "api_key", true},
		{"s.json", `{"api_key":"x"}`, "api_key", true},
		// Other names a credential goes by get the hint too.
		{"s.toml", "api_token = \"x\"\n", "api_token", true},
		{"s.json", `{"Authorization":"Bearer x"}`, "Authorization", true},
		{"s.json", `{"bearer":"x"}`, "bearer", true},
		{"s.toml", "secret = \"x\"\n", "secret", true},
		{"s.toml", "[text_model]\npassword = \"x\"\n", "password", true},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), tc.path, &cfg)
		if err == nil || !strings.Contains(err.Error(), tc.key) || strings.Contains(err.Error(), hint) != tc.hint {
			t.Errorf("%s %q: error %v; want one naming %q, with the API key hint: %v", tc.path, tc.data, err, tc.key, tc.hint)
		}
	}
}
