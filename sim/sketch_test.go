package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNthSmallest compares selection with sorting on the inputs that break
// naive partitions: sorted, reversed, all equal, few distinct values.
func TestNthSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := map[string]func(n int) []float64{
		"random":   func(n int) []float64 { return fill(n, func(int) float64 { return rng.Float64() }) },
		"sorted":   func(n int) []float64 { return fill(n, func(i int) float64 { return float64(i) }) },
		"reversed": func(n int) []float64 { return fill(n, func(i int) float64 { return float64(-i) }) },
		"equal":    func(n int) []float64 { return fill(n, func(int) float64 { return 0.5 }) },
		"few":      func(n int) []float64 { return fill(n, func(int) float64 { return float64(rng.IntN(3)) }) },
		"organ":    func(n int) []float64 { return fill(n, func(i int) float64 { return float64(min(i, n-i)) }) },
	}
	for name, gen := range inputs {
		for _, n := range []int{1, 2, 3, 10, 101, 1000} {
			in := gen(n)
			want := slices.Sorted(slices.Values(in))
			for _, k := range []int{0, n / 2, n * 9 / 10, n - 1, rng.IntN(n)} {
				v := slices.Clone(in)
				nthSmallest(v, k)
				if v[k] != want[k] {
					t.Fatalf("%s n=%d: selected %v as number %d, sorting gives %v", name, n, v[k], k, want[k])
				}
				for i := range v {
					if (i < k && v[i] > v[k]) || (i > k && v[i] < v[k]) {
						t.Fatalf("%s n=%d k=%d: v[%d] = %v on the wrong side of %v", name, n, k, i, v[i], v[k])
					}
				}
			}
		}
	}
}

func fill(n int, f func(i int) float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// TestSketchDistNearestRank checks the exact mode's quantiles against a
// sorted copy: the value of rank ⌈p·n⌉.
func TestSketchDistNearestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 100, 19366} {
		var s sketch
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = math.Round(rng.ExpFloat64()*1000) / 1000 // ties, as latencies in ms have
			s.add(vals[i])
		}
		slices.Sort(vals)
		rank := func(p float64) float64 { return vals[max(int(math.Ceil(p*float64(n))), 1)-1] }
		d := s.dist()
		if d.P50 != rank(0.5) || d.P90 != rank(0.9) || d.P99 != rank(0.99) || d.Max != vals[n-1] || d.N != int64(n) {
			t.Errorf("n=%d: P50/P90/P99/max %v/%v/%v/%v, want %v/%v/%v/%v", n, d.P50, d.P90, d.P99, d.Max,
				rank(0.5), rank(0.9), rank(0.99), vals[n-1])
		}
	}
}

// In histogram mode a percentile is its bucket's midpoint, which can lie
// below the smallest value seen: it is kept within [min, max], merged
// sketches included.
func TestSketchHistogramPercentilesWithinMinMax(t *testing.T) {
	g := (1 + sketchAlpha) / (1 - sketchAlpha)
	top := math.Pow(g, 100) * 0.9999 // just below a bucket's upper edge
	for _, vals := range [][]float64{{top, top, top}, {top, top * 1.0001, top * 1.0002, top * 1.0003}} {
		s := sketch{exactHigh: 1}
		var a, b sketch
		a.exactHigh, b.exactHigh = 1, 1
		for i, v := range vals {
			s.add(v)
			if i%2 == 0 {
				a.add(v)
			} else {
				b.add(v)
			}
		}
		a.merge(&b)
		lo, hi := slices.Min(vals), slices.Max(vals)
		for name, d := range map[string]Dist{"sketch": s.dist(), "merged": a.dist()} {
			for _, p := range []float64{d.P50, d.P90, d.P99} {
				if p < lo || p > hi {
					t.Errorf("%s of %v: P50/P90/P99 %v/%v/%v outside [%v, %v]", name, vals, d.P50, d.P90, d.P99, lo, hi)
					break
				}
			}
		}
	}
}
