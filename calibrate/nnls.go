package calibrate

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// NNLSSettings tunes NNLS. A nil *NNLSSettings, and zero fields, mean the
// defaults.
type NNLSSettings struct {
	// Tolerance on the dual (gradient) below which a variable is not
	// freed, relative to max|Aᵀb|. 0 means 1e-10.
	Tolerance float64
	// MaxIterations bounds the variables entered (a try that solves the
	// entering variable to ≤ 0 is not counted). 0 means 3 × columns + 10.
	MaxIterations int
}

// ErrNNLSNoConvergence is returned when NNLS hits MaxIterations.
var ErrNNLSNoConvergence = errors.New("calibrate: nnls did not converge")

// NNLS solves min ‖A·x − b‖₂ subject to x ≥ 0 by the Lawson–Hanson
// active-set method (Lawson & Hanson, Solving Least Squares Problems,
// 1974, ch. 23) and stores x in dst. dst must be empty (it is then sized
// to the columns of a) or have that length. Columns of very different
// scale should be scaled first; FitSteps does.
//
// A or b holding a NaN or infinity, or settings out of range, is an
// error. It returns the passive set: passive[j] is true when x[j] is free
// (strictly positive) at the solution and false when held at 0.
func NNLS(dst *mat.VecDense, a mat.Matrix, b mat.Vector, settings *NNLSSettings) (passive []bool, err error) {
	m, n := a.Dims()
	if b.Len() != m {
		return nil, fmt.Errorf("calibrate: nnls: b has %d rows, A has %d", b.Len(), m)
	}
	if n == 0 {
		return nil, errors.New("calibrate: nnls: A has no columns")
	}
	if dst.IsEmpty() {
		dst.ReuseAsVec(n)
	} else if dst.Len() != n {
		return nil, fmt.Errorf("calibrate: nnls: dst has length %d, want %d", dst.Len(), n)
	}
	var s NNLSSettings
	if settings != nil {
		s = *settings
	}
	// A NaN tolerance or datum would fail every comparison with the
	// gradient and stop at x = 0, returned as if solved.
	if !(s.Tolerance >= 0) || math.IsInf(s.Tolerance, 0) {
		return nil, fmt.Errorf("calibrate: nnls: tolerance = %g, want a finite number >= 0 (0: the default)", s.Tolerance)
	}
	if s.MaxIterations < 0 {
		return nil, fmt.Errorf("calibrate: nnls: max iterations = %d, want >= 0 (0: the default)", s.MaxIterations)
	}
	if err := checkFinite(a, b); err != nil {
		return nil, err
	}
	if s.Tolerance == 0 {
		s.Tolerance = 1e-10
	}
	if s.MaxIterations == 0 {
		s.MaxIterations = 3*n + 10
	}

	x := make([]float64, n)
	passive = make([]bool, n)
	w := mat.NewVecDense(n, nil)
	r := mat.NewVecDense(m, nil)
	var atb mat.VecDense
	atb.MulVec(a.T(), b)
	tol := s.Tolerance * math.Max(mat.Norm(&atb, math.Inf(1)), 1e-300)

	// grad computes w = Aᵀ(b − A·x).
	grad := func() {
		r.MulVec(a, mat.NewVecDense(n, x))
		r.SubVec(b, r)
		w.MulVec(a.T(), r)
	}
	z := make([]float64, n)
	// barred[j]: entering j at this x solved it to ≤ 0, through rounding
	// (its gradient passed the tolerance on noise, its column nearly in
	// the span of the passive ones). Entering it again changes nothing,
	// so it waits until x moves (Lawson & Hanson's test on the new
	// coefficient); else it would be picked every iteration until
	// MaxIterations.
	barred := make([]bool, n)
	grad()
	for iter := 0; ; {
		j := enteringVariable(w, passive, barred, tol)
		if j < 0 {
			break
		}
		if iter >= s.MaxIterations {
			return passive, ErrNNLSNoConvergence
		}
		passive[j] = true
		if err := solvePassive(z, a, b, passive); err != nil {
			return passive, err
		}
		if z[j] <= 0 {
			passive[j], barred[j] = false, true
			continue
		}
		iter++
		clear(barred)
		for inner := 0; !positiveOnPassive(z, passive); inner++ {
			if inner > 3*n {
				return passive, ErrNNLSNoConvergence
			}
			alpha, stop := math.Inf(1), -1
			for i := range n {
				if passive[i] && z[i] <= 0 {
					if a := x[i] / (x[i] - z[i]); a < alpha {
						alpha, stop = a, i
					}
				}
			}
			for i := range n {
				x[i] += alpha * (z[i] - x[i])
			}
			// The variable that set alpha reaches 0 exactly; rounding
			// leaves others at a trace of x's scale (b's, not 1's).
			tiny := 1e-15 * floats.Norm(x, math.Inf(1))
			for i := range n {
				if passive[i] && (i == stop || x[i] <= tiny) {
					passive[i] = false
					x[i] = 0
				}
			}
			if err := solvePassive(z, a, b, passive); err != nil {
				return passive, err
			}
		}
		copy(x, z)
		grad()
	}
	dst.CopyVec(mat.NewVecDense(n, x))
	return passive, nil
}

// enteringVariable returns the variable held at 0, and not barred, whose
// gradient is largest and above tol, or -1 when there is none.
func enteringVariable(w *mat.VecDense, passive, barred []bool, tol float64) int {
	j, best := -1, tol
	for i := range passive {
		if !passive[i] && !barred[i] && w.AtVec(i) > best {
			j, best = i, w.AtVec(i)
		}
	}
	return j
}

// positiveOnPassive reports whether z is > 0 at every passive variable.
func positiveOnPassive(z []float64, passive []bool) bool {
	for i, p := range passive {
		if p && z[i] <= 0 {
			return false
		}
	}
	return true
}

// checkFinite returns an error naming the first entry of a or b that is
// NaN or infinite.
func checkFinite(a mat.Matrix, b mat.Vector) error {
	m, n := a.Dims()
	for i := range m {
		for j := range n {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("calibrate: nnls: A[%d][%d] = %g, want a finite number", i, j, v)
			}
		}
		if v := b.AtVec(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("calibrate: nnls: b[%d] = %g, want a finite number", i, v)
		}
	}
	return nil
}

// solvePassive stores in z the unconstrained least-squares solution over
// the passive columns, 0 elsewhere.
func solvePassive(z []float64, a mat.Matrix, b mat.Vector, passive []bool) error {
	m, n := a.Dims()
	var cols []int
	for i := range n {
		z[i] = 0
		if passive[i] {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	ap := mat.NewDense(m, len(cols), nil)
	for c, j := range cols {
		for i := range m {
			ap.Set(i, c, a.At(i, j))
		}
	}
	var sol mat.VecDense
	if err := sol.SolveVec(ap, b); err != nil {
		return fmt.Errorf("calibrate: nnls: passive least squares: %w", err)
	}
	for c, j := range cols {
		z[j] = sol.AtVec(c)
	}
	return nil
}
