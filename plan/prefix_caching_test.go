package plan

import (
	"strings"
	"testing"
)

// TestPrefixCachingIsRequired: prefix caching changes the results of every
// strategy whenever the trace has prefix hashes, and engines differ in
// their default (vLLM v1 turns it on), so a plan must say which it measures.
func TestPrefixCachingIsRequired(t *testing.T) {
	limits := map[string]string{
		"serial":       "",
		"fixed":        "batch_size = 8\nmax_wait_ms = 5\n",
		"token_budget": "max_token_budget = 16384\nmax_wait_ms = 5\n",
		"continuous":   "max_num_seqs = 256\nmax_num_batched_tokens = 8192\nchunked_prefill = true\n",
	}
	batch := "strategy = \"continuous\"\nmax_num_seqs = 256\nmax_num_batched_tokens = 8192\nchunked_prefill = true\nprefix_caching = false\n"
	for st := range Strategies {
		lim, ok := limits[st]
		if !ok {
			t.Fatalf("strategy %q has no limits in this test", st)
		}
		own := "strategy = \"" + st + "\"\n" + lim
		for _, pc := range []string{"prefix_caching = false\n", "prefix_caching = true\n"} {
			p, err := Parse([]byte(strings.Replace(valid, batch, own+pc, 1)))
			if err != nil {
				t.Fatalf("%s with %s: %v", st, pc, err)
			}
			if want := strings.HasSuffix(pc, "true\n"); p.Batch.PrefixCaching != want {
				t.Errorf("%s with %s: PrefixCaching = %v", st, pc, p.Batch.PrefixCaching)
			}
		}
		_, err := Parse([]byte(strings.Replace(valid, batch, own, 1)))
		if want := "missing required key batch.prefix_caching"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s without prefix_caching: err = %v, want it to mention %q", st, err, want)
		}
	}
}

// A plan written before batch.prefix_caching was required is refused with
// a hint at the values the key takes and the one such plans ran with; the
// other missing keys keep the bare message, and Load names the file.
func TestLoadHintsAtTheMissingPrefixCaching(t *testing.T) {
	hint := "batch.prefix_caching (every strategy: true or false; plans written before it was required ran with false)"
	path := writePlan(t, strings.Replace(valid, "prefix_caching = false\n", "", 1))
	if _, err := Load(path); err == nil || err.Error() != path+": missing required key "+hint {
		t.Errorf("without prefix_caching: err = %v, want %q", err, path+": missing required key "+hint)
	}
	both := strings.NewReplacer("prefix_caching = false\n", "", "max_num_seqs = 256\n", "").Replace(valid)
	if _, err := Parse([]byte(both)); err == nil || err.Error() != "missing required key batch.max_num_seqs, "+hint {
		t.Errorf("without max_num_seqs and prefix_caching: err = %v, want the hint on prefix_caching alone", err)
	}
}
