package proxy

import "testing"

// A failed request generated nothing: its row keeps the request's size
// (max_tokens), but Stats, whose output tokens are what joules per token
// divide by, counts the tokens of successes only, as record does.
func TestStatsCountTokensOfSuccessesOnly(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	r.post(t, "/v1/chat/completions", chatBody("bad", false, false, "hi")) // 400
	r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"))
	_, rows := r.finish(t)
	if len(rows) != 2 || rows[0].Error == "" || rows[1].Error != "" {
		t.Fatalf("rows %+v", rows)
	}
	st := r.p.Stats()
	if st.OutputTokens != int64(rows[1].OutputTokens) || st.PromptTokens != int64(rows[1].PromptTokens) {
		t.Errorf("Stats: %d prompt + %d output tokens, want the success's %d + %d (the failure's max_tokens were never generated)",
			st.PromptTokens, st.OutputTokens, rows[1].PromptTokens, rows[1].OutputTokens)
	}
}

// The successes whose token counts are estimates (no usage block) are
// counted, so that the totals that include them can say so.
func TestStatsCountEstimatedSuccesses(t *testing.T) {
	r := newRig(t, ".jsonl", nil)
	r.post(t, "/v1/chat/completions", chatBody("m", true, false, "no usage"))
	r.post(t, "/v1/chat/completions", chatBody("m", true, true, "usage"))
	r.finish(t)
	if st := r.p.Stats(); st.Estimated != 1 {
		t.Errorf("Stats: %d successes with estimated tokens, want 1 (the stream without usage)", st.Estimated)
	}
}
