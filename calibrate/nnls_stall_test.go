package calibrate

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// With nearly collinear columns and a tolerance near rounding, the
// gradient of the column left out can pass the tolerance on rounding
// alone while the least squares with it entered gives it a value ≤ 0:
// it must be barred until x moves, not entered and dropped again until
// the iteration limit.
func TestNNLSConvergesWhenTheEnteringVariableSolvesToZero(t *testing.T) {
	for _, scale := range []float64{1, 1e-150} {
		a := mat.NewDense(3, 2, []float64{
			3, 3.0000000000000036,
			4, 3.999999999999996,
			2, 2,
		})
		a.Scale(scale, a)
		b := mat.NewVecDense(3, []float64{8 * scale, 9 * scale, 7 * scale})
		var x mat.VecDense
		if _, err := NNLS(&x, a, b, &NNLSSettings{Tolerance: 1e-16}); err != nil {
			t.Errorf("scale %g: %v", scale, err)
			continue
		}
		var r mat.VecDense
		r.MulVec(a, &x)
		r.SubVec(b, &r)
		_, want := bruteNNLS(a, b)
		if got := mat.Norm(&r, 2); math.Abs(got-want) > 1e-9*want {
			t.Errorf("scale %g: residual %g, brute force %g (x = %v)", scale, got, want, mat.Formatted(x.T()))
		}
		for j := range 2 {
			if x.AtVec(j) < 0 {
				t.Errorf("scale %g: x[%d] = %g, want >= 0", scale, j, x.AtVec(j))
			}
		}
	}
}
