package calibrate

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A NaN in the data, or a tolerance no gradient can pass, would stop
// NNLS before it freed a variable: x = 0 returned as the solution.
func TestNNLSRefusesWhatItCannotSolve(t *testing.T) {
	a := mat.NewDense(3, 2, []float64{1, 1, 1, 2, 1, 3})
	good := []float64{3, 3, 3}
	for _, c := range []struct {
		name     string
		a        []float64
		b        []float64
		settings *NNLSSettings
		want     string
	}{
		{"NaN in b", nil, []float64{3, math.NaN(), 3}, nil, "b[1]"},
		{"Inf in A", []float64{1, 1, math.Inf(1), 2, 1, 3}, good, nil, "A[1][0]"},
		{"NaN tolerance", nil, good, &NNLSSettings{Tolerance: math.NaN()}, "tolerance"},
		{"negative tolerance", nil, good, &NNLSSettings{Tolerance: -1}, "tolerance"},
		{"negative iterations", nil, good, &NNLSSettings{MaxIterations: -1}, "max iterations"},
	} {
		am := a
		if c.a != nil {
			am = mat.NewDense(3, 2, c.a)
		}
		var x mat.VecDense
		_, err := NNLS(&x, am, mat.NewVecDense(3, c.b), c.settings)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: x = %v, err %v; want an error naming %s", c.name, mat.Formatted(&x), err, c.want)
		}
	}
}
