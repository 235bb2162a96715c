package plan

import (
	"context"
	"math"
	"strings"
	"testing"
)

// The energy is devices × (idle + dynamic × utilization) × makespan, =
// devices × (idle × makespan + dynamic × busy seconds), with the
// catalog's H100 figures (70 W idle, 700 W TDP) or, when given, a
// profile's fit (100 W idle + 400 W × utilization), and the result says
// which priced it.
func TestEnergyUsesTheGivenPowerModel(t *testing.T) {
	r := mustResolve(t, strings.Replace(valid, "count = 1", "count = 2", 1))
	fit := func(u float64) float64 { return 100 + 400*u }
	for _, c := range []struct {
		name         string
		opt          Options
		idle, dyn    float64
		wantModelSub string
	}{
		{"catalog", Options{}, 70, 630, "catalog H100-SXM-80G: 70 W idle + 630 W × utilization per device"},
		{"profile", Options{Power: fit, PowerModel: "profile p.json fit"}, 100, 400, "profile p.json fit"},
	} {
		res, err := r.Simulate(context.Background(), "test", head(t, 20, 1), nil, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if s.BusySeconds <= 0 || s.BusySeconds >= s.Makespan {
			t.Fatalf("%s: busy %g s of %g s: want some idle time to tell idle from dynamic power", c.name, s.BusySeconds, s.Makespan)
		}
		want := 2 * (c.idle*s.Makespan + c.dyn*s.BusySeconds)
		if math.Abs(s.EnergyJoules-want) > 1e-9*want {
			t.Errorf("%s: energy %g J, want 2 × (%g W × %g s + %g W × %g s) = %g J", c.name, s.EnergyJoules, c.idle, s.Makespan, c.dyn, s.BusySeconds, want)
		}
		if res.PowerModel != c.wantModelSub {
			t.Errorf("%s: power model %q, want %q", c.name, res.PowerModel, c.wantModelSub)
		}
	}
}
