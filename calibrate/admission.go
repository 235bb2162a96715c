package calibrate

import (
	"slices"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Admission is how long a request that arrives while the engine is busy
// takes to reach its scheduler (sim.Admitter): measured by the admission
// runs (KindAdmission), nil when none was.
type Admission struct {
	Delay float64 `json:"delay_s"` // median over the probes, seconds
	P10   float64 `json:"p10_s"`
	P90   float64 `json:"p90_s"`
	N     int     `json:"n"` // probes measured
}

// admissionDelays reads an admission run's probes: each was sent while
// the carrier (request 0) was decoding, and the carrier's tokens mark the
// engine's step boundaries. A probe's prompt was computed in the step that
// ended with its first token, which started at the carrier's token
// before; it had not reached the scheduler when the step before that
// started, or it would have joined it. So its delay lies between the
// starts of those two steps less its send time; the midpoint is returned
// (seconds), for every probe admitted while the carrier still ran. tol is
// the run's clustering tolerance: tokens of different requests within it
// end the same step.
func admissionDelays(rows []*traces.Request, tol int64) []float64 {
	var carrier *traces.Request
	for _, r := range rows {
		if strings.HasSuffix(r.ID, "/0") {
			carrier = r
		}
	}
	if carrier == nil || !carrier.Succeeded() || len(carrier.TokenTimes) < 3 {
		return nil
	}
	bounds := carrier.TokenTimes
	var out []float64
	for _, r := range rows {
		if r == carrier || !r.Succeeded() || len(r.TokenTimes) == 0 || r.ActualSend == traces.Missing {
			continue
		}
		send, first := r.ActualSend, r.TokenTimes[0]
		if send <= bounds[0] || first >= bounds[len(bounds)-1]-tol {
			continue // sent before the carrier decoded, or no slot until it ended
		}
		// bounds[j] starts the probe's prefill step, bounds[j-1] the one before.
		j, _ := slices.BinarySearch(bounds, first-tol)
		j--
		if j < 1 || bounds[j] < send {
			continue
		}
		lo := max(0, bounds[j-1]-send)
		out = append(out, float64(lo+bounds[j]-send)/2e9)
	}
	return out
}

// summarizeAdmission is the Admission of delays (nil when empty).
func summarizeAdmission(delays []float64) *Admission {
	if len(delays) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(delays))
	return &Admission{Delay: pct(s, 0.5), P10: pct(s, 0.1), P90: pct(s, 0.9), N: len(s)}
}
