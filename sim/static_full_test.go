package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A token-budget batch that no request could join (what is left of the
// budget is less than the smallest request, prompt ≥ 1 plus max_new) is
// full: it starts at once instead of waiting out max_wait_ms.
func TestTokenBudgetBatchFullWhenNothingFits(t *testing.T) {
	bothModes(t, func(t *testing.T, noSkip bool) {
		p := PolicyConfig{Name: TokenBudget, TokenBudget: 40, MaxWaitMs: 1000}
		reqs := []*traces.Request{req("A", 0, 10, 10), req("B", 1, 10, 10)} // 40 tokens: the whole budget
		_, w := mustRun(t, testConfig(p, 100, noSkip), reqs)
		if a, b := w.byID["A"].StartTime, w.byID["B"].StartTime; a != 1*ms || b != 1*ms {
			t.Errorf("A, B start at %d, %d ns; want both at 1 ms (the budget is spent)", a, b)
		}

		// With max_new_tokens 10 every request reserves at least 11 tokens:
		// A and B (prompt 0 counts as 1) take 31 of 40, leaving 9.
		cfg := testConfig(p, 100, noSkip)
		cfg.MaxNewTokens = 10
		_, w = mustRun(t, cfg, []*traces.Request{req("A", 0, 10, 5), req("B", 1, 0, 5), req("C", 2, 0, 3)})
		if a, b := w.byID["A"].StartTime, w.byID["B"].StartTime; a != 1*ms || b != 1*ms {
			t.Errorf("max_new 10: A, B start at %d, %d ns; want both at 1 ms (9 tokens left, fewer than 11)", a, b)
		}
	})
}
