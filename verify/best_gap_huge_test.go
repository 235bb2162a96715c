package verify

import (
	"strings"
	"testing"
)

// How much dearer the sweep's best was reads as verify's errors do: in
// exponent form when huge, not as sixteen digits.
func TestBestGapHugeReadsAsErrors(t *testing.T) {
	gap, held := 1e14, false
	rk := Ranking{BestRank: 1, BestGap: &gap, BestHeld: &held, BestWithin: BestWithin}
	if s := rk.BestString(); !strings.Contains(s, "measured 1e+16% dearer") {
		t.Errorf("best: %s; want measured 1e+16%% dearer", s)
	}
}
