package main

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// decodeStep is one pure decode ubatch of a traced engine: every sequence
// in it computes one token.
type decodeStep struct {
	width int     // sequences
	cells float64 // cells attended over
	ms    float64 // until the next ubatch started
}

// decodeSteps prints, for the decode steps of the engine logs, the median
// step time by width and cells attended, then least-squares fits of three
// forms of the attention cost with their median error in each cell:
//
//	per sequence:  t = dense(width) + crd·width·cells
//	per step:      t = dense(width) + crd·width·cells + cr·cells
//	per width:     t = dense(width) + crd(width)·cells
//
// The last asks whether the cost per cell is in proportion to the width at
// all (cr adds nothing to it on decode steps).
//
// Each log is fitted on its own (the engine's speed drifts between runs);
// the errors of all logs are pooled.
func decodeSteps(paths []string) {
	type bucket struct{ width, cells int }
	times := map[bucket][]float64{}
	errs := [3]map[bucket][]float64{{}, {}, {}}
	for _, path := range paths {
		steps, err := readDecodeSteps(path)
		if err != nil {
			fail(err)
		}
		for _, s := range steps {
			b := bucket{s.width, cellBucket(s.cells)}
			times[b] = append(times[b], s.ms)
		}
		for form := range errs {
			pred, err := fitDecode(steps, decodeForm(form))
			if err != nil {
				fail(fmt.Errorf("%s: %w", path, err))
			}
			for i, s := range steps {
				b := bucket{s.width, cellBucket(s.cells)}
				errs[form][b] = append(errs[form][b], (pred[i]-s.ms)/s.ms)
			}
		}
	}
	keys := make([]bucket, 0, len(times))
	for b := range times {
		keys = append(keys, b)
	}
	slices.SortFunc(keys, func(x, y bucket) int {
		if x.width != y.width {
			return x.width - y.width
		}
		return x.cells - y.cells
	})
	fmt.Println("decode steps by width and cells attended over; median error of each fit (predicted − engine)/engine")
	fmt.Printf("%-6s %-12s %6s %9s   %13s %13s %13s\n", "width", "cells", "steps", "median ms", "per sequence", "+ per step", "per width")
	for _, b := range keys {
		v := times[b]
		if len(v) < 5 {
			continue
		}
		fmt.Printf("%-6d %-12s %6d %9.2f   %+12.1f%% %+12.1f%% %+12.1f%%\n", b.width, cellRange(b.cells), len(v), median(v),
			100*median(errs[0][b]), 100*median(errs[1][b]), 100*median(errs[2][b]))
	}
}

// cellBuckets are the lower edges of the cell ranges reported.
var cellBuckets = []int{0, 800, 2500}

func cellBucket(c float64) int {
	i := 0
	for i+1 < len(cellBuckets) && c >= float64(cellBuckets[i+1]) {
		i++
	}
	return i
}

func cellRange(i int) string {
	if i+1 < len(cellBuckets) {
		return fmt.Sprintf("%d–%d", cellBuckets[i], cellBuckets[i+1])
	}
	return fmt.Sprintf("≥ %d", cellBuckets[i])
}

// readDecodeSteps returns the pure decode ubatches of an engine log that
// another decode ubatch follows within 60 ms (a longer gap is the engine
// waiting, not computing; a next line stamped earlier, another thread's,
// times nothing).
func readDecodeSteps(path string) ([]decodeStep, error) {
	ubs, err := readUbatches(path)
	var steps []decodeStep
	for i := 0; i+1 < len(ubs); i++ {
		u, next := ubs[i], ubs[i+1]
		ms := float64(next.t-u.t) / 1e3
		if u.pureDecode() && next.tokens <= 8 && ms >= 0 && ms < 60 {
			steps = append(steps, decodeStep{u.decode, float64(u.cells), ms})
		}
	}
	if err == nil && len(steps) == 0 {
		err = fmt.Errorf("%s: no traced decode steps", path)
	}
	return steps, err
}

// decodeForm is one of the attention cost forms decodeSteps fits.
type decodeForm int

const (
	perSequence decodeForm = iota // crd·width·cells
	perStep                       // crd·width·cells + cr·cells
	perWidth                      // crd(width)·cells
)

// fitDecode fits one dense cost per width plus the form's attention cost
// by least squares and returns the fitted times.
func fitDecode(steps []decodeStep, form decodeForm) ([]float64, error) {
	var widths []int
	for _, s := range steps {
		if !slices.Contains(widths, s.width) {
			widths = append(widths, s.width)
		}
	}
	cols := []int{len(widths) + 1, len(widths) + 2, 2 * len(widths)}[form]
	a := mat.NewDense(len(steps), cols, nil)
	y := mat.NewVecDense(len(steps), nil)
	for i, s := range steps {
		w := slices.Index(widths, s.width)
		a.Set(i, w, 1)
		switch form {
		case perSequence, perStep:
			a.Set(i, len(widths), float64(s.width)*s.cells)
			if form == perStep {
				a.Set(i, len(widths)+1, s.cells)
			}
		case perWidth:
			a.Set(i, len(widths)+w, s.cells)
		}
		y.SetVec(i, s.ms)
	}
	var c mat.VecDense
	if err := c.SolveVec(a, y); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	var p mat.VecDense
	p.MulVec(a, &c)
	return p.RawVector().Data, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
