package sweep

import (
	"strings"
	"testing"
)

// Size counts each strategy's configs by the keys that apply to it, as
// Expand builds them.
func TestSizeCountsEachStrategysAxes(t *testing.T) {
	s, err := LoadSpec("testdata/small.toml")
	if err != nil {
		t.Fatal(err)
	}
	// continuous 2×2, fixed 2×2×1, token_budget 2×1×1, serial 2
	if n, err := s.Size(); n != 12 || err != nil {
		t.Errorf("Size() = %d, %v, want 12, nil", n, err)
	}
}

// Past the limit Size is an error naming the keys that multiply it.
func TestSizePastTheLimit(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n"+
		`"batch.max_num_seqs" = {from = 1, to = 2000, step = 1}`+"\n"+
		`"device.count" = {from = 1, to = 1000, step = 1}`+"\n"+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Size(); err == nil || !strings.Contains(err.Error(), "more than 1000000 configs") {
		t.Errorf("Size() error = %v, want the limit named", err)
	}
}
