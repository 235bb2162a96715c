package sweep

import (
	"strings"
	"testing"
)

// A rule between two values that a swept value breaks is the config's
// mistake, not the base plan's: when another error stops the sweep, the
// base plan's value is not named as if it were wrong on its own.
func TestExpandBlamesTheConfigForARuleItsSweptValueBreaks(t *testing.T) {
	for _, c := range []struct{ name, sweep, rule, notBase string }{
		{"max_num_seqs past its bound", `"batch.max_num_seqs" = [40000]`,
			"config 0 (continuous max_num_seqs=40000): batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (40000)",
			"batch.max_num_batched_tokens"},
		{"max_model_len of zero", `"device.max_model_len" = [0, 4096]`,
			"config 0 (continuous max_model_len=0): device.max_model_len: must be ≥ 1, got 0",
			"device.block_size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, err := loadWithBase(t, "pue = 1.2", "pue = 1.2", "[sweep]\n"+c.sweep+"\n")
			if err == nil || !strings.Contains(err.Error(), c.rule) {
				t.Fatalf("err = %v\nwant it to mention %q", err, c.rule)
			}
			if strings.Contains(err.Error(), "base "+base) {
				t.Errorf("err = %v\nnames the base plan's %s, which is fine on its own", err, c.notBase)
			}
		})
	}
}

// A rule that a value the spec gives inline breaks is the spec's, at the
// line of that value: the base plan's max_num_batched_tokens = 8192 is
// sound on its own, and an inline max_num_seqs = 40000 breaks the rule
// between them.
func TestExpandBlamesTheSpecForARuleItsInlineValueBreaks(t *testing.T) {
	base, err := loadWithBase(t, "pue = 1.2", "pue = 1.2",
		"[batch]\nmax_num_seqs = 40000\n[sweep]\n\"device.gpu_memory_utilization\" = [0.8, 0.9]\n")
	want := "line 3: batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (40000)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant it to mention %q", err, want)
	}
	if strings.Contains(err.Error(), "base "+base) {
		t.Errorf("err = %v\nnames the base plan's batch.max_num_batched_tokens, which is fine on its own", err)
	}
}
