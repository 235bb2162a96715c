package sim

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// Config.Rejecter refuses exactly the requests a run rejects on arrival:
// over max_model_len, too large for the KV cache, failed in the source
// trace; and admits the rest, one whose output max_new_tokens cuts to fit
// included.
func TestRejecterMatchesARunsRejections(t *testing.T) {
	cfg := testConfig(PolicyConfig{Name: Fixed, BatchSize: 1, MaxWaitMs: 20}, 8, false) // 8 blocks of 16
	cfg.MaxModelLen, cfg.MaxNewTokens = 100, 50
	failed := req("failed", 3, 10, 5)
	failed.SourceFailed = true
	reqs := []*traces.Request{
		req("fits", 0, 40, 5), req("capped", 1, 40, 500), req("over_len", 2, 90, 20),
		failed, req("fits_too", 4, 10, 5),
	}
	_, w := mustRun(t, cfg, reqs)
	refuses := cfg.Rejecter()
	n := 0
	for _, r := range reqs {
		got, ran := refuses(r), w.byID[r.ID].Error
		if got != "" {
			n++
		}
		if (got != "") != strings.HasPrefix(ran, "rejected: ") {
			t.Errorf("%s: Rejecter says %q, the run %q; want them to agree", r.ID, got, ran)
		}
	}
	if n != 2 {
		t.Errorf("Rejecter refuses %d requests; want 2 (over_len, failed)", n)
	}
	big := testConfig(PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: 20}, 2, false) // 32 tokens of KV
	if got := big.Rejecter()(req("kv", 0, 40, 5)); !strings.Contains(got, "KV blocks") {
		t.Errorf("a request over the KV cache: Rejecter says %q; want it refused for its KV blocks", got)
	}
}
