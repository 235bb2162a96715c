package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCostOneDeviceHour(t *testing.T) {
	p := Prices{DevicePerHour: 2}
	c := p.Cost(Usage{Devices: 1, WallSeconds: 3600, OutputTokens: 1_000_000, InputTokens: 3_000_000})
	if c.DeviceSeconds != 3600 || c.HardwareUSD != 2 || c.EnergyUSD != 0 || c.TotalUSD != 2 {
		t.Errorf("cost = %+v", c)
	}
	if c.PerMOutputUSD != 2 || c.PerMTotalUSD != 0.5 {
		t.Errorf("per M: output %g, total %g", c.PerMOutputUSD, c.PerMTotalUSD)
	}
	if c.HasBilled || c.BilledUSD != 0 {
		t.Errorf("billed without API prices: %+v", c)
	}
}

func TestCostEnergyWithPUE(t *testing.T) {
	// 8 devices for 30 min at $3/h = $12. 2 kWh (7.2e6 J) of device energy at
	// $0.10/kWh with PUE 1.5 = $0.30.
	p := Prices{DevicePerHour: 3, EnergyPerKWh: 0.10, PUE: 1.5}
	c := p.Cost(Usage{Devices: 8, WallSeconds: 1800, EnergyJoules: 7.2e6, OutputTokens: 500_000})
	if c.DeviceSeconds != 14400 || c.HardwareUSD != 12 || !near(c.EnergyUSD, 0.30, 1e-12) || !near(c.TotalUSD, 12.30, 1e-12) {
		t.Errorf("cost = %+v", c)
	}
	if !near(c.PerMOutputUSD, 24.60, 1e-12) {
		t.Errorf("per M output = %g", c.PerMOutputUSD)
	}
	// PUE 0 means 1.
	p.PUE = 0
	if c := p.Cost(Usage{EnergyJoules: 3.6e6}); !near(c.EnergyUSD, 0.10, 1e-12) {
		t.Errorf("PUE 0: energy %g", c.EnergyUSD)
	}
	// Energy not measured (traces.Missing, -1 J) costs nothing.
	if c := p.Cost(Usage{Devices: 1, WallSeconds: 3600, EnergyJoules: -1}); c.EnergyUSD != 0 || c.TotalUSD != 3 {
		t.Errorf("unmeasured energy: %+v", c)
	}
}

func TestCostBilled(t *testing.T) {
	p := Prices{DevicePerHour: 2, APIInputPerMTok: 0.5, APIOutputPerMTok: 1.5}
	c := p.Cost(Usage{Devices: 1, WallSeconds: 3600, InputTokens: 2_000_000, OutputTokens: 1_000_000})
	// 2 M × $0.5 + 1 M × $1.5 = $2.5.
	if !c.HasBilled || c.BilledUSD != 2.5 || c.BilledPerMOutputUSD != 2.5 {
		t.Errorf("billed = %+v", c)
	}
}

// A cost per token of a run without tokens is undefined, not free: NaN in
// Go and null in JSON (which cannot hold NaN), never 0.
func TestCostNoTokensIsUndefined(t *testing.T) {
	p := Prices{DevicePerHour: 2, APIInputPerMTok: 0.5, APIOutputPerMTok: 1.5}
	c := p.Cost(Usage{Devices: 1, WallSeconds: 10})
	if !math.IsNaN(c.PerMOutputUSD) || !math.IsNaN(c.PerMTotalUSD) || !math.IsNaN(c.BilledPerMOutputUSD) {
		t.Errorf("no tokens: %+v, want NaN per 1M tokens", c)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"PerMOutputUSD":null`, `"PerMTotalUSD":null`, `"BilledPerMOutputUSD":null`, `"HardwareUSD":0.00555`} {
		if !strings.Contains(string(data), f) {
			t.Errorf("JSON %s lacks %s", data, f)
		}
	}
	// Input tokens alone: a total per 1M tokens, none per 1M output tokens.
	c = p.Cost(Usage{Devices: 1, WallSeconds: 3600, InputTokens: 1_000_000})
	if !math.IsNaN(c.PerMOutputUSD) || c.PerMTotalUSD != 2 || !math.IsNaN(c.BilledPerMOutputUSD) {
		t.Errorf("input only: %+v", c)
	}
	data, _ = json.Marshal(c)
	if !strings.Contains(string(data), `"PerMTotalUSD":2,`) || !strings.Contains(string(data), `"PerMOutputUSD":null`) {
		t.Errorf("input only: JSON %s", data)
	}
}

func TestTailPenalty(t *testing.T) {
	if got := TailPenalty(1.25, 1.0); !near(got, 0.25, 1e-12) {
		t.Errorf("TailPenalty(1.25, 1) = %g", got)
	}
	if got := TailPenalty(1, 1); got != 0 {
		t.Errorf("TailPenalty(1, 1) = %g", got)
	}
	if got := TailPenalty(1, 0); !math.IsNaN(got) {
		t.Errorf("TailPenalty(1, 0) = %g, want NaN", got)
	}
}

func TestPricesValidate(t *testing.T) {
	if err := DefaultPrices(mustHW(t, "H100-SXM-80G")).Validate(); err != nil {
		t.Error(err)
	}
	if p := DefaultPrices(mustHW(t, "A100-80G")); p.DevicePerHour != 1.79 || p.EnergyPerKWh != DefaultEnergyPerKWh || p.PUE != DefaultPUE {
		t.Errorf("DefaultPrices = %+v", p)
	}
	err := Prices{DevicePerHour: -1, PUE: 0.8, APIOutputPerMTok: math.Inf(1)}.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"device_per_hour = -1", "pue = 0.8", "api_output_per_mtok = +Inf"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}
