// Package numfmt formats the figures servesim shows people (latencies,
// dollars, counts, shares, relative errors), so that one quantity reads the same
// in every table: simulate's, verify's, compare's and the report's.
// Machine outputs (JSON, CSV) never go through it.
package numfmt

import (
	"fmt"
	"math"
	"math/big"
	"time"
)

// Cell formatting: unknown values are an em dash, never 0. Past Huge
// in magnitude a figure is shown in exponent form (1e+20), not as dozens
// of digits; a value that is not 0 but below one unit of the cell's last
// decimal keeps two significant digits (3e-07, 0.0049, 0.0052 at two
// decimals), so that it does not read as none, nor as one unit (0.01)
// just above the half unit where its neighbour just below reads 0.0049;
// and 0 is never negative ("0.0", and "+0.0%" as Change signs every figure).

// Huge is the magnitude from which fixed-point output stops being
// readable (16 digits and more).
const Huge = 1e15

func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Fixed is v with prec decimals, in exponent form when huge, or with
// two significant digits below one unit of the last decimal.
func Fixed(v float64, prec int) string {
	switch a := math.Abs(v); {
	case !known(v):
		return "—"
	case a == 0:
		return fmt.Sprintf("%.*f", prec, 0.0)
	case a >= Huge:
		return fmt.Sprintf("%.3g", v)
	case a < math.Pow10(-prec): // %f would show 0 or one unit, whatever the digits
		return fmt.Sprintf("%.2g", v)
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// Secs formats seconds: "850µs", "42.1ms", "3.21s", "8m27s". It picks
// the unit by the value as rounded to its digits (0.99996 s is "1.00s",
// not "1000.0ms"), and by its size whatever its sign.
func Secs(s float64) string {
	switch a := math.Abs(s); {
	case !known(s):
		return "—"
	case a < 999.5e-6:
		return Fixed(s*1e6, 0) + "µs"
	case a < 0.99995:
		return fmt.Sprintf("%.1fms", s*1e3)
	case a < 59.995:
		return fmt.Sprintf("%.2fs", s)
	case a < 1e9: // within a time.Duration
		return (time.Duration(math.Round(s)) * time.Second).String()
	}
	return Fixed(s, 0) + "s"
}

// USD formats dollars. It picks the decimals by the value as rounded to
// them, as Secs picks its unit: $99.996 is "$100", not "$100.00", and
// $0.99996 is "$1.00", not "$1.0000". A negative amount (a cost that
// fell) is signed before the dollar sign: "-$5.00".
func USD(v float64) string {
	if !known(v) {
		return "—"
	}
	sign := ""
	if v < 0 {
		sign = "-"
	}
	switch a := math.Abs(v); {
	case a < 0.99995:
		return sign + "$" + Fixed(a, 4)
	case a < 99.995:
		return fmt.Sprintf("%s$%.2f", sign, a)
	default:
		return sign + "$" + Fixed(a, 0)
	}
}

// Change is a relative change or error r as a signed percentage with one
// decimal ("+12.3%", "-4.0%", "+0.0%"), as Fixed writes the figure
// ("-0.04%", never "-0.0%"; "+1e+16%" from Huge percent on); inf is
// what an infinite r reads as, "—" an unknown one.
func Change(r float64, inf string) string {
	var s string
	switch {
	case math.IsNaN(r):
		return "—"
	case math.IsInf(r, 0):
		return inf
	case math.Abs(100*r) >= Huge:
		s = Hundredfold(r)
	default:
		s = Fixed(100*r, 1)
	}
	if s[0] != '-' {
		s = "+" + s
	}
	return s + "%"
}

// Hundredfold is 100 × v in exponent form, exact where 100 × v would
// overflow to Inf; "—" for NaN.
func Hundredfold(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return new(big.Float).Mul(big.NewFloat(v), big.NewFloat(100)).Text('g', 3)
}

// Share is a fraction v of a whole in percent with prec decimals, as
// Fixed keeps a share that is not 0 from reading as none (1 of 3000 is
// "0.033%", not "0.0%"); one just short of all reads ">99.9%" (prec 1),
// not "100.0%", which means all. Below Pct's floor it reads as Pct's
// does ("<0.001%"), not in exponent form.
func Share(v float64, prec int) string {
	p, step := 100*v, math.Pow10(-prec)
	switch {
	case !known(v):
		return "—"
	case p != 0 && math.Abs(p) < pctFloor:
		return belowFloor(p)
	case p >= 100-step/2 && p < 100: // %f would round it up to 100
		return fmt.Sprintf(">%.*f%%", prec, 100-step)
	}
	return Fixed(p, prec) + "%"
}

// Pct is a share v as a whole percent, with finer digits where the
// whole percent would misread it: a share that is not 0 never reads as
// "0%" (a cache barely used is not unused), nor one short of all as
// "100%" (a peak of 99.8% did not fill the cache).
func Pct(v float64) string {
	p := 100 * v
	switch a := math.Abs(p); {
	case !known(v):
		return "—"
	case a >= Huge:
		return Hundredfold(v) + "%"
	case a == 0:
		return "0%" // never "-0%"
	case a < pctFloor:
		return belowFloor(p)
	case a < 0.5:
		return fmt.Sprintf("%.2g%%", p) // two significant digits: 0.016%
	case p >= 99.95 && p < 100:
		return ">99.9%"
	case p >= 99.5 && p < 100:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", math.Round(p)) // %.0f rounds a half to even: 0.5% read "0%"
}

// SignedPct is v as Pct writes it, signed as Change signs a figure:
// "+34%", "-0.4%", "+0%"; a bound's marker stays first ("<+0.001%").
func SignedPct(v float64) string {
	s, mark := Pct(v), ""
	if s[0] == '<' || s[0] == '>' {
		mark, s = s[:1], s[1:]
	}
	if s[0] != '-' && known(v) {
		s = "+" + s
	}
	return mark + s
}

// pctFloor is the smallest share, in percent, Pct and Share give digits for:
// below it the figure would need exponent form (3e-05%).
const pctFloor = 0.001

// belowFloor is a percentage p, not 0, smaller in magnitude than pctFloor.
func belowFloor(p float64) string {
	if p > 0 {
		return "<0.001%"
	}
	return ">-0.001%"
}

// AtLeast marks a figure that is a lower bound "≥": one taken at a
// capacity the search capped (sweep.Row.CapacityLowerBound) that rises
// with the load, so at the true capacity it is higher. "—" is no figure
// to mark.
func AtLeast(cell string) string {
	if cell == "—" {
		return cell
	}
	return "≥" + cell
}

// AtMost marks a figure that is an upper bound "≤": one taken at a
// capacity the search capped that falls as the load rises, so at the
// true capacity it is lower. "—" is no figure to mark.
func AtMost(cell string) string {
	if cell == "—" {
		return cell
	}
	return "≤" + cell
}

// Count is n and the noun, plural unless n is 1: "1 run", "8 runs", so
// that no message hedges with "run(s)".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
