package calibrate

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// PowerSample is one NVML reading: time in ns from the trace start, board
// power in watts, and SM utilization as a fraction in [0, 1] (NVML reports
// percent: divide by 100).
type PowerSample struct {
	T           int64
	Watts       float64
	Utilization float64
}

// PowerFit is the linear power model watts = Idle + Dynamic × utilization,
// the same shape as model.Hardware.PowerWatts (Idle ↔ IdleWatts, Idle +
// Dynamic ↔ TDPWatts at full utilization).
type PowerFit struct {
	Idle    Coef       `json:"idle_watts"`
	Dynamic Coef       `json:"dynamic_watts"`
	Quality FitQuality `json:"quality"`
	Notes   []string   `json:"notes,omitempty"`
	// Devices are the GPUs whose samples were fitted (all the host's
	// unless calibrate --gpu-devices chose the engine's); empty in a
	// profile written before they were recorded.
	Devices []PowerDevice `json:"devices,omitempty"`
}

// PowerDevice is one GPU of a power fit, as NVML names it.
type PowerDevice struct {
	Index int    `json:"index"`
	UUID  string `json:"uuid,omitempty"`
	Name  string `json:"name,omitempty"`
}

// Watts evaluates the fitted model at utilization u (not clamped).
func (p PowerFit) Watts(u float64) float64 { return p.Idle.Value + p.Dynamic.Value*u }

// FitPower fits idle and dynamic power to NVML samples by NNLS with
// analytic 95% intervals (as FitSteps). It errors on fewer than 3
// samples, on non-finite or negative watts, on samples that all read 0 W
// (no power measured), and on utilization outside [0, 1]. When
// utilization never varies, Dynamic is reported unexcited (value 0) and
// Idle is the mean power.
func FitPower(samples []PowerSample) (*PowerFit, error) {
	n := len(samples)
	if n < 3 {
		return nil, fmt.Errorf("calibrate: fit power: %d samples, need at least 3", n)
	}
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i, s := range samples {
		if !(s.Watts >= 0) || math.IsInf(s.Watts, 0) {
			return nil, fmt.Errorf("calibrate: fit power: sample %d: watts = %g, must be finite and >= 0", i, s.Watts)
		}
		if !(s.Utilization >= 0 && s.Utilization <= 1) {
			return nil, fmt.Errorf("calibrate: fit power: sample %d: utilization = %g, must be a fraction in [0, 1]", i, s.Utilization)
		}
		x.Set(i, 0, 1)
		x.Set(i, 1, s.Utilization)
		y[i] = s.Watts
	}
	// A board without a power sensor reads 0 W throughout: nothing was
	// measured, and a fit would report 0 W idle and dynamic with R² 1.
	if floats.Max(y) == 0 {
		return nil, fmt.Errorf("calibrate: fit power: all %d samples read 0 W: the sampler measured no power", n)
	}
	lf, err := fitLinear(x, y, []string{"idle_watts", "dynamic_watts"}, []bool{false, false}, nil, 0, 0, n, nil)
	if err != nil {
		return nil, fmt.Errorf("calibrate: fit power: %w", err)
	}
	return &PowerFit{Idle: lf.coefs[0], Dynamic: lf.coefs[1], Quality: lf.quality, Notes: lf.noteTexts()}, nil
}

// PowerWatts is the fitted power of one device at utilization u, clamped
// to [0, 1] (NaN counts as 0) as model.Hardware.PowerWatts clamps it: the
// samples are NVML's, one a device, so the fit is watts per device.
func (p PowerFit) PowerWatts(u float64) float64 {
	if math.IsNaN(u) || u < 0 {
		u = 0
	} else if u > 1 {
		u = 1
	}
	return p.Watts(u)
}
