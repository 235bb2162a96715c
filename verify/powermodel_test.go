package verify

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
)

// A profile's power fit is watts per device at a utilization clamped to
// [0, 1]; a fit whose device the profile does not name prices nothing.
func TestPowerModelOfAProfile(t *testing.T) {
	fit := &calibrate.PowerFit{Idle: calibrate.Coef{Value: 100}, Dynamic: calibrate.Coef{Value: 400}, Quality: calibrate.FitQuality{R2: 0.9, N: 50}}
	p := &calibrate.Profile{Device: "H100-SXM-80G", TensorParallel: 2, Power: fit}
	power, desc := PowerModel(p, "p.json")
	if power == nil {
		t.Fatal("no power model from a profile with a power fit")
	}
	for u, want := range map[float64]float64{0: 100, 0.5: 300, 1: 500, 1.5: 500, -1: 100} {
		if got := power(u); got != want {
			t.Errorf("power(%g) = %g W, want %g W", u, got, want)
		}
	}
	if want := "profile p.json fit on H100-SXM-80G: 100 W idle + 400 W × utilization per device"; !strings.HasPrefix(desc, want) {
		t.Errorf("description %q, want it to start %q", desc, want)
	}
	for _, q := range []*calibrate.Profile{nil, {Device: "H100-SXM-80G"}, {Power: fit}} {
		if power, desc := PowerModel(q, "q.json"); power != nil || desc != "" {
			t.Errorf("profile %+v: got a power model %q, want the catalog's", q, desc)
		}
	}
}
