package traces

import (
	"maps"
	"strconv"
	"testing"
)

// A product of time scales is the workload's within float rounding: a
// trace scaled by 0.1 then 3 and replayed at 1/0.3 runs its arrivals as
// recorded, and 0.7 then 3 is a scale of 2.1.
func TestWorkloadScaleWithinRounding(t *testing.T) {
	inv := strconv.FormatFloat(1/0.3, 'g', -1, 64)
	cases := []struct{ a, b map[string]string }{
		{map[string]string{"time_scale": "0.1*3", "replay.time_scale": inv}, nil},
		{map[string]string{"time_scale": "49", "replay.time_scale": strconv.FormatFloat(1/49.0, 'g', -1, 64)}, nil},
		{map[string]string{"time_scale": "0.7*3"}, map[string]string{"time_scale": "2.1"}},
	}
	for _, c := range cases {
		a, b := Workload(Meta{Extra: c.a}), Workload(Meta{Extra: c.b})
		if !maps.Equal(a, b) {
			t.Errorf("Workload(%v) = %v, Workload(%v) = %v: want equal", c.a, a, c.b, b)
		}
	}
}
