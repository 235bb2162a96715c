package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/plan"
)

// A profile's power fit (profile_v1.json: 70 W idle + 550 W ×
// utilization) prices the energy of simulate --profile, and the output
// says so; a profile that names no device leaves it to the catalog's
// figures (70 W idle, 700 W TDP on H100-SXM-80G) with a warning.
func TestSimulateProfilePowerPricesTheEnergy(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,10\n2000000000,100,10\n")
	prof := "../../calibrate/testdata/profile_v1.json"
	data, _ := os.ReadFile(prof)
	noDevice := writeFile(t, dir, "nodevice.json", string(bytes.Replace(data, []byte(`"H100-SXM-80G"`), []byte(`""`), 1)))
	cfg := basePlan(t, dir, "p.toml")
	for _, c := range []struct {
		name, prof string
		idle, dyn  float64
		say, warn  string
	}{
		{"fit", prof, 70, 550, "power model:  profile " + prof + " fit on H100-SXM-80G: 70 W idle + 550 W × utilization per device", ""},
		{"no device", noDevice, 70, 630, "power model:  catalog H100-SXM-80G: 70 W idle + 630 W × utilization per device", "names no device"},
	} {
		out := filepath.Join(dir, c.name)
		stdout, err := run(t, "simulate", "--trace", tr, "--profile", c.prof, "--config", cfg, "--out", out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout, c.say) {
			t.Errorf("%s: output does not say %q:\n%s", c.name, c.say, stdout)
		}
		if (c.warn != "") != strings.Contains(stdout, "names no device") {
			t.Errorf("%s: warning of a fit without a device: want %v:\n%s", c.name, c.warn != "", stdout)
		}
		raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var res []plan.Result
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		s := res[0].Summary
		// one device (the plan's count)
		want := c.idle*s.Makespan + c.dyn*s.BusySeconds
		if math.Abs(s.EnergyJoules-want) > 1e-9*want {
			t.Errorf("%s: energy %g J, want %g W × %g s + %g W × %g s = %g J", c.name, s.EnergyJoules, c.idle, s.Makespan, c.dyn, s.BusySeconds, want)
		}
		if got, want := res[0].PowerModel, strings.TrimPrefix(c.say, "power model:  "); !strings.HasPrefix(got, want) {
			t.Errorf("%s: summary.json power_model %q, want it to start %q", c.name, got, want)
		}
	}
}
