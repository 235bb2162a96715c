package replay

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A run's prompts share one block of Config.BlockSize tokens per prefix
// hash when it is set: the measured trace must say so, or re-simulating it
// (or rebuilding its prompts) reads the hashes at the input's block size.
func TestOutputMetaHasTheBlockSizeUsed(t *testing.T) {
	cfg := testConfig(nil)
	cfg.BlockSize = 16
	if m := OutputMeta(traces.Meta{BlockSize: 512}, cfg, 1); m.BlockSize != 16 {
		t.Errorf("output block_size %d, want 16, the block size the prompts were built with", m.BlockSize)
	}
	cfg.BlockSize = 0 // the trace's own
	if m := OutputMeta(traces.Meta{BlockSize: 512}, cfg, 1); m.BlockSize != 512 {
		t.Errorf("output block_size %d, want the trace's 512", m.BlockSize)
	}
}
