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
