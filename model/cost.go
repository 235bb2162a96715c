package model

import (
	"encoding/json"
	"fmt"
	"math"
)

// Default energy figures for DefaultPrices.
const (
	// DefaultEnergyPerKWh is a US commercial/industrial electricity price
	// in USD per kWh (EIA 2024 averages: about 0.08 industrial, 0.13
	// commercial).
	DefaultEnergyPerKWh = 0.10
	// DefaultPUE is a modern data centre's power usage effectiveness
	// (hyperscalers report 1.1–1.2; the Uptime Institute industry average
	// is about 1.5).
	DefaultPUE = 1.2
)

// Prices are the unit prices of the cost model, all in USD.
type Prices struct {
	DevicePerHour float64 // per device-hour
	EnergyPerKWh  float64 // per kWh of facility energy
	PUE           float64 // facility energy / device energy, >= 1; 0 means 1
	// API per-token prices per million tokens, for the billed basis;
	// 0 = not given.
	APIInputPerMTok, APIOutputPerMTok float64
}

// DefaultPrices are h's default device price with DefaultEnergyPerKWh and
// DefaultPUE, and no API prices. When the device price is a cloud rental,
// which already pays for power, the energy term is an attribution on top
// rather than a separate bill; set EnergyPerKWh to 0 to exclude it.
func DefaultPrices(h Hardware) Prices {
	return Prices{DevicePerHour: h.PricePerHour, EnergyPerKWh: DefaultEnergyPerKWh, PUE: DefaultPUE}
}

// Validate checks that prices are finite and non-negative and that PUE is
// 0 (meaning 1) or at least 1.
func (p Prices) Validate() error {
	var pr problems
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"device_per_hour", p.DevicePerHour}, {"energy_per_kwh", p.EnergyPerKWh},
		{"api_input_per_mtok", p.APIInputPerMTok}, {"api_output_per_mtok", p.APIOutputPerMTok},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			pr.add("%s = %g, must be a finite value >= 0", f.name, f.v)
		}
	}
	if !(p.PUE == 0 || p.PUE >= 1) || math.IsInf(p.PUE, 0) {
		pr.add("pue = %g, must be >= 1 (or 0 for 1)", p.PUE)
	}
	if len(pr) == 0 {
		return nil
	}
	return fmt.Errorf("model: prices: %s", joinProblems(pr))
}

// HasAPIPrices reports whether either API per-token price is given.
func (p Prices) HasAPIPrices() bool { return p.APIInputPerMTok > 0 || p.APIOutputPerMTok > 0 }

// Usage is what a simulated (or measured) run consumed.
type Usage struct {
	Devices      int     // devices held for the whole run
	WallSeconds  float64 // how long they were held
	EnergyJoules float64 // device energy, summed over devices (before PUE); < 0 when not measured
	InputTokens  int64
	OutputTokens int64
}

// CostBreakdown is the cost of a Usage at some Prices, in USD.
type CostBreakdown struct {
	DeviceSeconds float64 // Devices × WallSeconds

	// Estimated basis: what running the hardware costs.
	HardwareUSD   float64 // DeviceSeconds / 3600 × DevicePerHour
	EnergyUSD     float64 // EnergyJoules / 3.6e6 × EnergyPerKWh × PUE
	TotalUSD      float64 // HardwareUSD + EnergyUSD
	PerMOutputUSD float64 // TotalUSD per million output tokens; NaN without output tokens
	PerMTotalUSD  float64 // TotalUSD per million input+output tokens; NaN without tokens

	// Billed basis: what the same tokens cost at the API per-token prices.
	// Only meaningful when HasBilled; otherwise both are 0.
	HasBilled           bool
	BilledUSD           float64 // InputTokens × APIInputPerMTok/1e6 + OutputTokens × APIOutputPerMTok/1e6
	BilledPerMOutputUSD float64 // BilledUSD per million output tokens; NaN without output tokens
}

// MarshalJSON writes an undefined per-million-token figure (NaN) as null:
// JSON has no NaN, and a 0 would read as free tokens. Decoding a null
// leaves 0, as for sim.Dist; read the token counts beside it.
func (c CostBreakdown) MarshalJSON() ([]byte, error) {
	type plain CostBreakdown // without this method
	return json.Marshal(struct {
		plain
		PerMOutputUSD, PerMTotalUSD, BilledPerMOutputUSD *float64
	}{plain(c), definedOrNil(c.PerMOutputUSD), definedOrNil(c.PerMTotalUSD), definedOrNil(c.BilledPerMOutputUSD)})
}

func definedOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Cost prices u. Per-million-token figures are NaN when there are no
// tokens to divide by: a run without tokens has no cost per token.
func (p Prices) Cost(u Usage) CostBreakdown {
	pue := p.PUE
	if pue == 0 {
		pue = 1
	}
	var c CostBreakdown
	c.DeviceSeconds = float64(u.Devices) * u.WallSeconds
	c.HardwareUSD = c.DeviceSeconds / 3600 * p.DevicePerHour
	if u.EnergyJoules > 0 { // not traces.Missing (-1): unmeasured energy costs nothing, not −1 J
		c.EnergyUSD = u.EnergyJoules / 3.6e6 * p.EnergyPerKWh * pue
	}
	c.TotalUSD = c.HardwareUSD + c.EnergyUSD
	c.PerMOutputUSD = perMillion(c.TotalUSD, u.OutputTokens)
	c.PerMTotalUSD = perMillion(c.TotalUSD, u.InputTokens+u.OutputTokens)
	if p.HasAPIPrices() {
		c.HasBilled = true
		c.BilledUSD = float64(u.InputTokens)/1e6*p.APIInputPerMTok + float64(u.OutputTokens)/1e6*p.APIOutputPerMTok
		c.BilledPerMOutputUSD = perMillion(c.BilledUSD, u.OutputTokens)
	}
	return c
}

func perMillion(usd float64, tokens int64) float64 {
	if tokens <= 0 {
		return math.NaN()
	}
	return usd / float64(tokens) * 1e6
}

// TailPenalty is the relative extra cost of keeping P99 latency within an
// SLO compared with running at saturation: costAtSLO/costAtSaturation − 1,
// where both are costs per token (0.25 = 25% more). It is NaN when
// costAtSaturation is not positive.
func TailPenalty(costAtSLO, costAtSaturation float64) float64 {
	if !(costAtSaturation > 0) {
		return math.NaN()
	}
	return costAtSLO/costAtSaturation - 1
}
