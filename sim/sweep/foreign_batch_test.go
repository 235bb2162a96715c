package sweep

import (
	"strings"
	"testing"
)

// A batch limit of a strategy the sweep never runs would be dropped from
// every config unsaid, where loading the plan refuses it: the sweep
// refuses it too, at its line. A limit some strategy of the spec uses
// (swept, inline or the base plan's), or a zero an encoded plan writes,
// is kept.
func TestSpecRefusesABatchKeyOfNoSweptStrategy(t *testing.T) {
	seqs := "[sweep]\n\"batch.max_num_seqs\" = [16, 64]\n"
	base, err := loadWithBase(t, "chunked_prefill = true", "chunked_prefill = true\nbatch_size = 8", seqs)
	want := "base " + base + ": line 12: batch.batch_size: does not apply to strategy continuous"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("base plan: err = %v\nwant %q", err, want)
	}
	_, _, err = writeSpec(t, "base = \"base.toml\"\n[batch]\nmax_wait_ms = 5\n"+seqs+sloTOML)
	want = "line 3: batch.max_wait_ms: does not apply to strategy continuous"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("inline: err = %v\nwant %q", err, want)
	}
	both := "[sweep]\n\"batch.strategy\" = [\"continuous\", \"fixed\"]\n\"batch.max_wait_ms\" = [5]\n"
	if _, err := loadWithBase(t, "chunked_prefill = true", "chunked_prefill = true\nbatch_size = 8", both); err != nil {
		t.Errorf("batch_size for the fixed configs: %v", err)
	}
	// the base plan's own limits give way to an inline strategy
	fixed := "[batch]\nstrategy = \"fixed\"\nbatch_size = 8\nmax_wait_ms = 5\n[sweep]\n\"batch.batch_size\" = [8, 16]\n"
	if _, err := loadWithBase(t, "pue = 1.2", "pue = 1.2", fixed); err != nil {
		t.Errorf("a fixed spec over a continuous base plan: %v", err)
	}
	if _, err := loadWithBase(t, "chunked_prefill = true", "chunked_prefill = true\nbatch_size = 0", seqs); err != nil {
		t.Errorf("an encoded plan's zero batch_size: %v", err)
	}
}
