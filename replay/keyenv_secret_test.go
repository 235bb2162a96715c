package replay

import (
	"strings"
	"testing"
)

// The key given where its variable's name goes (--api-key-env sk-...) is
// refused, and not shown: else every 401 names "$sk-..." in the trace rows
// and the log.
func TestAPIKeyEnvThatIsTheKeyIsRefusedUnshown(t *testing.T) {
	const key = "sk-proj-KEYASNAME-0123456789"
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = "http://127.0.0.1:8000/v1", "m", key
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "APIKeyEnv") || strings.Contains(err.Error(), "KEYASNAME") {
		t.Fatalf("Validate with the key as the variable's name: %v", err)
	}
	t.Setenv("SERVESIM.ODD-NAME", "sk-x") // an odd name that is set is a name
	cfg.APIKeyEnv = "SERVESIM.ODD-NAME"
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate with a set variable of an odd name: %v", err)
	}
}

// A key with '=' (base64 padding) or a space in it, given where the
// variable's name goes, is refused without being shown.
func TestAPIKeyEnvWithEqualsOrSpaceIsRefusedUnshown(t *testing.T) {
	for _, key := range []string{"c2stS0VZQVNOQU1FLTAxMjM0NTY3==", "Bearer sk-KEYASNAME-0123456789", "sk-KEYASNAME-0123456789\n"} {
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = "http://127.0.0.1:8000/v1", "m", key
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "APIKeyEnv") || strings.Contains(err.Error(), "KEYASNAME") || strings.Contains(err.Error(), "c2stS0VZ") {
			t.Errorf("Validate with the key %q as the variable's name: %v", key, err)
		}
	}
}

// Keys of letters, digits and '_' only (Hugging Face's hf_..., Groq's
// gsk_..., Azure's hex keys) are valid names too: given where the
// variable's name goes and unset, they are refused unshown, as a 401 would
// name the variable in every row's error. Ordinary names are kept.
func TestAPIKeyEnvThatIsAnAlphanumericKeyIsRefusedUnshown(t *testing.T) {
	for _, key := range []string{"hf_KEYASNAMEab3cdefGHIJ7KLmnopqrst9UV", "gsk_8fKEYASNAME2mQ9xLp4RtV7wZ3bN6cYh1JdS5eUa0GiO", "3f2a9c7e1b4d8f6a0c5e2b9d7fKEYASNAME"} {
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = "http://127.0.0.1:8000/v1", "m", key
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "APIKeyEnv") || strings.Contains(err.Error(), "KEYASNAME") {
			t.Errorf("Validate with the key %q as the variable's name: %v", key, err)
		}
	}
	for _, name := range []string{"OPENAI_API_KEY", "SERVESIM_NO_KEY", "NOKEY", "none", "my_api_key", "HF_TOKEN_2", "VLLM_API_KEY_FOR_NODE_17"} {
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.APIKeyEnv = "http://127.0.0.1:8000/v1", "m", name
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate with the unset name %q: %v", name, err)
		}
	}
}
