package sweep

import (
	"strings"
	"testing"
)

// A range whose number of steps does not fit an int is refused as too
// long; it used to yield no values and Expand then indexed an empty axis.
func TestRangeTooLongForIntIsRefused(t *testing.T) {
	for _, r := range []string{
		`"batch.max_num_seqs" = {from = 1, to = 9223372036854775807, step = 1}`,
		`"rate_scale" = {from = 1e-300, to = 1e300, step = 1e-300}`,
	} {
		_, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n"+r+"\n"+sloTOML)
		if err == nil || !strings.Contains(err.Error(), "more than 10000 values") {
			n := -1
			if s != nil && len(s.Axes) > 0 {
				n = len(s.Axes[0].Values)
			}
			t.Errorf("%s: err = %v (%d values), want more than 10000 values", r, err, n)
		}
	}
}
