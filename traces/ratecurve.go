package traces

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// RatePoint is a point of a rate curve: Rate events/s at T seconds from
// the trace's start.
type RatePoint struct{ T, Rate float64 }

func (p RatePoint) String() string { return formatFloat(p.T) + ":" + formatFloat(p.Rate) }

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// formatCurve writes points as ParseRateCurve reads them.
func formatCurve(points []RatePoint) string {
	s := make([]string, len(points))
	for i, p := range points {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// ParseRateCurve parses "SECONDS:RATE,SECONDS:RATE,..." (spaces around a
// pair allowed). Only the syntax is checked here: SynthConfig.Validate
// checks the points.
func ParseRateCurve(s string) ([]RatePoint, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("rate curve %q: want SECONDS:RATE pairs, comma-separated", s)
	}
	var points []RatePoint
	for i, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		ts, rs, ok := strings.Cut(pair, ":")
		if !ok {
			return nil, fmt.Errorf("rate curve pair %d %q: want SECONDS:RATE", i+1, pair)
		}
		t, err := strconv.ParseFloat(ts, 64)
		if err != nil {
			return nil, fmt.Errorf("rate curve pair %d %q: time %q is not a number", i+1, pair, ts)
		}
		r, err := strconv.ParseFloat(rs, 64)
		if err != nil {
			return nil, fmt.Errorf("rate curve pair %d %q: rate %q is not a number", i+1, pair, rs)
		}
		points = append(points, RatePoint{t, r})
	}
	return points, nil
}

// validateCurve reports every bad point of Arrival.Curve: the curve
// starts at 0 s, its times rise within the clock, its rates are in
// [0, MaxArrivalRate], and the last, held for ever after, is positive
// (else the trace would never end).
func validateCurve(points []RatePoint) error {
	if len(points) == 0 {
		return fieldErr("Arrival.Curve", "want at least one SECONDS:RATE point (nil: no curve), got none")
	}
	var errs []error
	bad := func(i int, format string, args ...any) {
		errs = append(errs, fieldErr("Arrival.Curve", "point %d (%s): "+format, append([]any{i + 1, points[i]}, args...)...))
	}
	for i, p := range points {
		switch {
		case i == 0 && p.T != 0:
			bad(i, "the curve starts at 0 s, got %v s", p.T)
		case i > 0 && !(p.T > points[i-1].T):
			bad(i, "time %v s is not after the previous point's %v s: want times rising", p.T, points[i-1].T)
		case p.T > maxSeconds:
			bad(i, "time %v s is past the 2^32 s a trace's arrivals can reach", p.T)
		}
		if !(p.Rate >= 0 && p.Rate <= MaxArrivalRate) {
			bad(i, "rate %v is outside [0, %g] events/s (a 1 µs mean gap at most; arrivals are kept to the ns)", p.Rate, float64(MaxArrivalRate))
		}
	}
	if last := len(points) - 1; points[last].Rate == 0 {
		bad(last, "the rate is held after the last point: want it > 0, or the trace would never end")
	}
	return errors.Join(errs...)
}

// rateCurve is a valid Arrival.Curve with its integral worked out at
// each point, to map a unit-rate process onto it (time rescaling).
type rateCurve struct {
	points []RatePoint
	cum    []float64 // events expected by each point's time
}

func newRateCurve(points []RatePoint) *rateCurve {
	rc := &rateCurve{points: points, cum: make([]float64, len(points))}
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		rc.cum[i] = rc.cum[i-1] + (a.Rate+b.Rate)/2*(b.T-a.T)
	}
	return rc
}

// at is the time, in seconds, by which the curve expects tau events: the
// inverse of its integral, taking the earliest such time past any
// stretch of zero rate.
func (rc *rateCurve) at(tau float64) float64 {
	p := rc.points
	last := len(p) - 1
	i := sort.Search(last, func(i int) bool { return rc.cum[i+1] > tau })
	x := tau - rc.cum[i]
	if i == last {
		return p[last].T + x/p[last].Rate
	}
	if x <= 0 {
		return p[i].T
	}
	// Solve a·dt² + b·dt = x on the segment, in the form that keeps its
	// precision when a is near 0.
	length := p[i+1].T - p[i].T
	b := p[i].Rate
	a := (p[i+1].Rate - b) / (2 * length)
	dt := 2 * x / (b + math.Sqrt(math.Max(0, b*b+4*a*x)))
	return p[i].T + math.Min(dt, length)
}

// peak is the curve's highest rate.
func (rc *rateCurve) peak() float64 {
	var r float64
	for _, p := range rc.points {
		r = max(r, p.Rate)
	}
	return r
}
