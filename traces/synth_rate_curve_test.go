package traces

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// diurnal ramps from 10 to 50 requests/s over 600 s, back to 10 by
// 1200 s, and holds 10 after.
var diurnal = []RatePoint{{0, 10}, {600, 50}, {1200, 10}}

// curveIntegral is the expected count of arrivals in [from, to) under
// diurnal: the area under it.
func curveIntegral(from, to float64) float64 {
	rate := func(t float64) float64 {
		switch {
		case t < 600:
			return 10 + 40*t/600
		case t < 1200:
			return 50 - 40*(t-600)/600
		}
		return 10
	}
	const steps = 1000
	sum, h := 0.0, (to-from)/steps
	for i := 0; i < steps; i++ {
		sum += rate(from+(float64(i)+0.5)*h) * h // midpoint: exact for linear pieces
	}
	return sum
}

// Each process put under a rate curve has, in every window, the count
// the curve's area gives, within the process's own noise (a gamma
// process's counts vary cv² times a Poisson's).
func TestSynthRateCurveWindows(t *testing.T) {
	for _, a := range []ArrivalSpec{
		{Kind: ArrivalPoisson, Curve: diurnal},
		{Kind: ArrivalGamma, CV: 2, Curve: diurnal},
		{Kind: ArrivalConstant, Curve: diurnal},
	} {
		c := DefaultSynthConfig()
		c.Seed, c.Requests, c.Arrival = 7, 42000, a
		_, rows := synthAll(t, c)
		const window = 100.0
		counts := map[int]int{}
		for i, r := range rows {
			if i > 0 && r.Arrival < rows[i-1].Arrival {
				t.Fatalf("%s: row %d arrives at %d before row %d at %d", a.Kind, i, r.Arrival, i-1, rows[i-1].Arrival)
			}
			counts[int(float64(r.Arrival)/1e9/window)]++
		}
		for w := 0; w < 16; w++ { // the rows reach about 1800 s
			want := curveIntegral(float64(w)*window, float64(w+1)*window)
			tol := 5 * math.Sqrt(want)
			switch a.Kind {
			case ArrivalGamma:
				tol *= a.CV
			case ArrivalConstant:
				tol = 2
			}
			if got := float64(counts[w]); math.Abs(got-want) > tol {
				t.Errorf("%s: [%d, %d) s: %v arrivals, want %.1f ± %.1f", a.Kind, w*100, (w+1)*100, got, want, tol)
			}
		}
	}
}

// The same seed draws the same curve-driven trace; a curve that is flat
// at r draws the Poisson process at rate r, in distribution.
func TestSynthRateCurveDeterministic(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests, c.Arrival = 500, ArrivalSpec{Kind: ArrivalPoisson, Curve: diurnal}
	_, a := synthAll(t, c)
	_, b := synthAll(t, c)
	if !reflect.DeepEqual(a, b) {
		t.Error("two syntheses with one seed differ")
	}
}

// A curve that starts at zero opens the trace where its rate first
// turns positive, and draws nothing where it is zero.
func TestSynthRateCurveZeroStretch(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 2000
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Curve: []RatePoint{{0, 0}, {100, 0}, {200, 20}, {300, 0}, {400, 0}, {401, 5}}}
	_, rows := synthAll(t, c)
	for i, r := range rows {
		s := float64(r.Arrival) / 1e9
		if s < 100 || (s > 300 && s < 400) {
			t.Fatalf("row %d arrives at %v s, where the rate is 0", i, s)
		}
	}
	if s := float64(rows[0].Arrival) / 1e9; s != 100 {
		t.Errorf("first row at %v s, want 100 (where the rate turns positive)", s)
	}
}

// The metadata records the curve in the arrival process's place.
func TestSynthRateCurveMeta(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests, c.Arrival = 3, ArrivalSpec{Kind: ArrivalGamma, CV: 2, Curve: []RatePoint{{0, 1}, {600, 5.5}, {1200, 1}}}
	m, _ := synthAll(t, c)
	if got, want := m.Extra["arrival"], "gamma(rate_curve=0:1,600:5.5,1200:1,cv=2)"; got != want {
		t.Errorf("meta arrival %q, want %q", got, want)
	}
	c = sessionConfig()
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Curve: []RatePoint{{0, 1}, {60, 2}}}
	m, _ = synthAll(t, c)
	if got, want := m.Extra["arrival"], "poisson(rate_curve=0:1,60:2 sessions/s)"; got != want {
		t.Errorf("sessions: meta arrival %q, want %q", got, want)
	}
}

// A curve opens sessions as it opens rows: their first turns follow it.
func TestSynthRateCurveSessions(t *testing.T) {
	c := sessionConfig()
	c.Requests, c.Seed = 20000, 3
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Curve: []RatePoint{{0, 1}, {600, 5}, {1200, 1}}} // diurnal / 10
	_, rows := synthAll(t, c)
	firsts := map[int]int{}
	for _, turns := range bySession(t, rows) {
		if s := float64(turns[0].Arrival) / 1e9; s < 1200 {
			firsts[int(s/300)]++
		}
	}
	for w := 0; w < 4; w++ {
		want := curveIntegral(float64(w)*300, float64(w+1)*300) / 10
		if got := float64(firsts[w]); math.Abs(got-want) > 5*math.Sqrt(want) {
			t.Errorf("[%d, %d) s: %v sessions opened, want %.1f", w*300, (w+1)*300, got, want)
		}
	}
}

func TestSynthRateCurveValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		curve []RatePoint
		rate  float64
		field string
		msg   string
	}{
		"empty":             {[]RatePoint{}, 0, "Arrival.Curve", "want at least one"},
		"late start":        {[]RatePoint{{5, 1}}, 0, "Arrival.Curve", `point 1 (5:1): the curve starts at 0 s`},
		"times not rising":  {[]RatePoint{{0, 1}, {10, 2}, {10, 3}}, 0, "Arrival.Curve", `point 3 (10:3): time 10 s is not after the previous point's 10 s`},
		"negative rate":     {[]RatePoint{{0, 1}, {10, -2}}, 0, "Arrival.Curve", `point 2 (10:-2): rate -2 is outside [0, 1e+06]`},
		"rate past the cap": {[]RatePoint{{0, 2e6}}, 0, "Arrival.Curve", `point 1 (0:2e+06): rate 2e+06 is outside [0, 1e+06]`},
		"NaN time":          {[]RatePoint{{0, 1}, {math.NaN(), 1}}, 0, "Arrival.Curve", `point 2 (NaN:1)`},
		"time past clock":   {[]RatePoint{{0, 1}, {1e10, 1}}, 0, "Arrival.Curve", `point 2 (1e+10:1): time 1e+10 s is past`},
		"zero at the end":   {[]RatePoint{{0, 1}, {10, 0}}, 0, "Arrival.Curve", `point 2 (10:0): the rate is held after the last point: want it > 0`},
		"rate beside it":    {diurnal, 1, "Arrival.Rate", "the rate curve sets the rate"},
	} {
		c := DefaultSynthConfig()
		c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Rate: tc.rate, Curve: tc.curve}
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: Validate() = %v, want a %s error saying %q", name, err, tc.field, tc.msg)
		}
	}
	// The clock bound counts the curve's time: 1e-6 requests/s after
	// 10 s puts the 10,000th row past 2^32 s.
	c := DefaultSynthConfig()
	c.Requests, c.Arrival = 10000, ArrivalSpec{Kind: ArrivalConstant, Curve: []RatePoint{{0, 100}, {10, 1e-6}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "Requests") {
		t.Errorf("slow tail: Validate() = %v, want a Requests error", err)
	}
}

func TestParseRateCurve(t *testing.T) {
	got, err := ParseRateCurve(" 0:1, 600:5 ,1200:0.5")
	if want := []RatePoint{{0, 1}, {600, 5}, {1200, 0.5}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRateCurve = %v, %v; want %v", got, err, want)
	}
	for in, want := range map[string]string{
		"":             `rate curve "": want SECONDS:RATE pairs, comma-separated`,
		"0:1,600":      `rate curve pair 2 "600": want SECONDS:RATE`,
		"0:1,x:5":      `rate curve pair 2 "x:5": time "x" is not a number`,
		"0:1,600:fast": `rate curve pair 2 "600:fast": rate "fast" is not a number`,
		"0:1,,600:5":   `rate curve pair 2 "": want SECONDS:RATE`,
	} {
		_, err := ParseRateCurve(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseRateCurve(%q) = %v, want %q", in, err, want)
		}
	}
}

// Under a curve, the row-rate cap holds at its peak: sessions of 4 turns
// opened at up to 5e5/s would make 2e6 rows/s there.
func TestSynthRateCurveSessionsPeakCapped(t *testing.T) {
	c := sessionConfig()
	c.Arrival = ArrivalSpec{Kind: ArrivalPoisson, Curve: []RatePoint{{0, 1}, {60, 5e5}, {120, 1}}}
	err := c.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Arrival.Curve" || !strings.Contains(fe.Msg, "2e+06 requests/s") {
		t.Errorf("Validate() = %v, want an Arrival.Curve error saying 2e+06 requests/s", err)
	}
}
