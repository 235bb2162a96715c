package replay

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A usage block without prompt_tokens measured no prompt: the row's
// usage_prompt_tokens is empty, as the recording proxy leaves it, not 0.
func TestUsageWithoutPromptTokensIsMissing(t *testing.T) {
	for _, keep := range []bool{false, true} {
		srv := sseServer(`data: {"choices":[{"delta":{"content":"ab"}}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"completion_tokens":2,"total_tokens":2}}` + "\n\ndata: [DONE]\n\n")
		cfg := testConfig(nil)
		cfg.BaseURL, cfg.KeepText = srv.URL+"/v1", keep
		_, out := runRows(t, cfg, rows(1, 0, 40, 5))
		srv.Close()
		if r := out[0]; r.Error != "" || r.UsageOutput != 2 || r.UsagePrompt != traces.Missing {
			t.Errorf("keep text %v: error %q, usage output %d, prompt %d; want success, 2, missing (%d)", keep, r.Error, r.UsageOutput, r.UsagePrompt, traces.Missing)
		}
	}
}
