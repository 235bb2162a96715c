package main

import (
	"math"
	"testing"
)

// Steps whose cost per cell is not in proportion to their width (as on
// the CPU engine: 1.4, 3 and 5 µs per cell at 1, 2 and 4 sequences): the
// per-width form fits them exactly, the per-sequence form cannot.
func TestFitDecodeForms(t *testing.T) {
	perCell := map[int]float64{1: 1.4e-3, 2: 3e-3, 4: 5e-3} // ms per cell
	dense := map[int]float64{1: 5.2, 2: 12.6, 4: 14.1}
	var steps []decodeStep
	for _, w := range []int{1, 2, 4} {
		for cells := 300.0; cells <= 4500; cells += 200 {
			steps = append(steps, decodeStep{width: w, cells: cells, ms: dense[w] + perCell[w]*cells})
		}
	}
	worst := func(form decodeForm) float64 {
		pred, err := fitDecode(steps, form)
		if err != nil {
			t.Fatal(err)
		}
		m := 0.0
		for i, s := range steps {
			m = math.Max(m, math.Abs(pred[i]-s.ms)/s.ms)
		}
		return m
	}
	if e := worst(perWidth); e > 1e-9 {
		t.Errorf("per width: worst error %.3g, want an exact fit", e)
	}
	if e := worst(perSequence); e < 0.02 {
		t.Errorf("per sequence: worst error %.3g, want the form to miss by more than 2%%", e)
	}
}
