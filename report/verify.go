package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// VerificationSection shows a `servesim verify` result: predicted against
// measured per candidate and metric, a predicted-vs-measured scatter, and
// per-candidate CDF overlays of the measured and simulated TTFT and TPOT
// (the traces verify wrote). It ignores Inputs: the result is its input.
type VerificationSection struct{ Result *verify.Result }

func (VerificationSection) Title() string { return "Verification: predicted vs measured" }

func (s VerificationSection) Blocks(*Inputs) ([]Block, error) {
	res := s.Result
	if res == nil || len(res.Candidates) == 0 {
		return nil, nil
	}
	// not "replayed": a candidate whose engine never started was not
	blocks := []Block{&Text{Text: fmt.Sprintf("%d of %s measured live on %s (--slice %s); predictions by %s. "+
		"Error = (predicted − measured) / measured; %s outside tolerance, %s not measured.",
		len(res.Candidates)-res.Incomplete, numfmt.Count(len(res.Candidates), "candidate"), numfmt.Count(res.Requests, "request"), res.Slice, res.StepModel,
		numfmt.Count(res.ToleranceFailures, "metric"), numfmt.Count(res.Incomplete, "candidate"))}}
	// the figures are of a session-waiting workload, not the slice's schedule
	if res.SessionWait != "" {
		blocks = append(blocks, &Text{Text: fmt.Sprintf("Live and predicted, every run held each session's next turn "+
			"until its previous one ended (%s turnaround): requests were sent as the engine served them, not at the slice's times.", res.SessionWait)})
	}
	tab := &Table{Caption: "Predicted vs measured", Header: []string{"candidate", "status", "metric", "predicted", "measured", "error", "tolerance", "verdict"},
		Numeric: []bool{false, false, false, true, true, true, true, false}}
	for _, c := range res.Candidates {
		name := fmt.Sprintf("#%d %s", c.Rank, c.Label)
		if c.Status != verify.StatusOK {
			tab.Rows = append(tab.Rows, []string{name, c.Status, "", "", "", "", "", c.Detail})
			tab.Marked = append(tab.Marked, true)
			if kept := c.KeptRuns(); kept != "" { // as verify prints it
				tab.Rows = append(tab.Rows, []string{name, c.Status, "runs", "", "", "", "", kept})
				tab.Marked = append(tab.Marked, true)
			}
			continue
		}
		if len(c.Rows) == 0 { // as verify prints it
			tab.Rows = append(tab.Rows, []string{name, c.Status, "", "", "", "", "", "no measured rows: " + c.NoRowsReason()})
			tab.Marked = append(tab.Marked, true)
		}
		for _, r := range c.Rows {
			verdict, bad := "n/a", false
			if r.Pass != nil {
				verdict, bad = map[bool]string{true: "pass", false: "FAIL"}[*r.Pass], !*r.Pass
			}
			meas := verify.FormatValue(r.Metric, r.Measured)  // as verify prints it
			if r.MeasuredMin != nil && r.MeasuredMax != nil { // the mean of several runs, and their range
				meas += fmt.Sprintf(" (%s–%s, %d runs)", verify.FormatValue(r.Metric, r.MeasuredMin), verify.FormatValue(r.Metric, r.MeasuredMax), len(c.Repeats))
			}
			tab.Rows = append(tab.Rows, []string{name, c.Status, c.MetricLabel(r.Metric), verify.FormatValue(r.Metric, r.Predicted), meas,
				r.ErrorString(), verify.FormatTolerance(r.Tolerance), verdict})
			tab.Marked = append(tab.Marked, bad)
		}
		// as verify prints it: the latencies above are of the completed
		// requests only, so how many completed, and how the rest failed
		if c.Measured.Requests > 0 {
			failed := c.Failures()
			tab.Rows = append(tab.Rows, []string{name, c.Status, "requests (completed)",
				fmt.Sprintf("%d/%d", c.Predicted.Completed, c.Predicted.Requests),
				fmt.Sprintf("%d/%d", c.Measured.Completed, c.Measured.Requests), "", "", failed})
			tab.Marked = append(tab.Marked, failed != "")
		}
	}
	blocks = append(blocks, tab)
	// why a measured energy cell is "—", as verify prints it
	for _, line := range res.EnergyUnknownLines() {
		blocks = append(blocks, &Text{Text: line + "."})
	}
	// figures at a capped load, not at the capacity, as verify prints it
	if line := res.CappedLoadLine(); line != "" {
		blocks = append(blocks, &Text{Text: strings.ToUpper(line[:1]) + line[1:] + "."})
	}
	// what the verification targets are judged on, as verify prints it
	if errs := verify.FormatErrors(res.MedianAbsError); errs != "" {
		blocks = append(blocks, &Text{Text: "Median |error| over candidates: " + errs + "."})
	}
	rk := res.Ranking
	if len(rk.Entries) > 0 {
		t := fmt.Sprintf("Ranking by measured $/1M output tokens (%s): the simulator's order held: %s", costBasisNote(res), rk.HeldString())
		if rk.TauSweep != nil {
			t += fmt.Sprintf(" (Kendall τ %.2f)", *rk.TauSweep)
		}
		if rk.BestHeld != nil { // verify's words and verdict
			t += "; " + rk.BestString()
		}
		if left := rk.LeftOutString(); left != "" { // who τ leaves out, as verify prints it
			t += "; " + left
		}
		blocks = append(blocks, &Text{Text: t + "."})
	} else if left := rk.LeftOutString(); left != "" { // no ranking, but who is out of it, as verify prints it
		blocks = append(blocks, &Text{Text: "Ranking by measured $/1M output tokens: " + left + "."})
	}
	if cs := res.Consistency; cs.Compared > 0 {
		blocks = append(blocks, &Text{Text: fmt.Sprintf("Output consistency at temperature 0: %d of %d requests generated different text across %s (%s).",
			cs.Differ, cs.Compared, res.ConsistencyAcross(), numfmt.Share(cs.Fraction, 1))})
	}
	for _, u := range res.Consistency.Unread {
		blocks = append(blocks, &Text{Text: "Output consistency leaves out " + u + "."})
	}
	if fig, leftOff, err := scatterFigure(res); err != nil {
		return nil, err
	} else if fig != nil {
		blocks = append(blocks, fig)
	} else if leftOff != "" {
		blocks = append(blocks, &Text{Text: "Predicted ÷ measured not drawn: " + leftOff + "."})
	}
	for _, c := range res.Candidates {
		if c.Status != verify.StatusOK {
			continue
		}
		meas, err1 := TraceRun(context.Background(), c.Trace, traces.SLO{})
		simd, err2 := TraceRun(context.Background(), c.SimTrace, traces.SLO{})
		if err := errors.Join(err1, err2); err != nil { // only the trace(s) that failed
			blocks = append(blocks, &Text{Text: fmt.Sprintf("#%d: CDFs not drawn: %v", c.Rank, err)})
			continue
		}
		meas.Name, simd.Name = "measured", "simulated"
		if n := len(c.Repeats); n > 1 { // the table's measured is the runs' mean; c.Trace is the first run's
			meas.Name = fmt.Sprintf("measured (run 1 of %d)", n)
		}
		for _, m := range []struct {
			what string
			get  func(*Latencies) []float64
		}{{"TTFT", func(l *Latencies) []float64 { return l.TTFT }}, {"TPOT", func(l *Latencies) []float64 { return l.TPOT }}} {
			fig, err := cdfFigure(fmt.Sprintf("verify-rank%02d-%s", c.Rank, m.what), m.what, []*Run{meas, simd}, m.get)
			if err != nil {
				return nil, err
			}
			if fig == nil {
				continue
			}
			fig.Caption = fmt.Sprintf("#%d %s: %s", c.Rank, c.Label, fig.Caption)
			// an overlay with one line would read as agreement, or as
			// one run: say which is missing (a simulation that completed
			// nothing is the worst prediction, not a figure to hide)
			for _, r := range []*Run{meas, simd} {
				if len(m.get(r.Lat)) == 0 {
					fig.Caption += fmt.Sprintf(" No %s line: none of its %d requests completed with a %s.", r.Name, r.Metrics.Requests, m.what)
				}
			}
			fig.Caption += unequalSessionWait(meas, simd)
			blocks = append(blocks, fig)
		}
	}
	return blocks, nil
}

// unequalSessionWait warns when only one of a candidate's measured and
// simulated runs held sessions' turns (their traces' metadata): the two
// lines are then of different workloads, whatever verify.json says.
func unequalSessionWait(meas, simd *Run) string {
	if meas.SessionWait == simd.SessionWait {
		return ""
	}
	held, other := "measured", "simulated"
	if simd.SessionWait {
		held, other = other, held
	}
	return fmt.Sprintf(" warning: only the %s run held each session's next turn until its previous one ended; "+
		"the %s one sent every request at its time: their workloads differ.", held, other)
}

// scatterFigure plots predicted against measured, every metric of every
// measured candidate normalised by its measured value (so 1 is exact),
// on a log y axis with each metric's own tolerance dashed about 1 (the
// one its rows were gated on: P99s default to 20%, --tol-* change any),
// so a point the table passes is inside its band. leftOff names the
// compared values the log axis cannot take (a 0, a ratio that under- or
// overflows), which the caption lists too: a prediction that nothing
// completes is the worst miss, not one to drop without a word.
func scatterFigure(res *verify.Result) (fig *Figure, leftOff string, err error) {
	p := newPlot("Predicted / measured", "metric", "predicted ÷ measured (log)")
	var legend []legendEntry
	var off []string
	n := len(verify.MetricNames)
	tols := make([]float64, n) // per metric; 0: not gated, no band
	for j, name := range verify.MetricNames {
		tols[j] = res.Tolerances.Tolerance(name)
		for _, c := range res.Candidates {
			if j < len(c.Rows) && c.Rows[j].Tolerance > 0 {
				tols[j] = c.Rows[j].Tolerance
			}
		}
	}
	lo, hi := 1.0, 1.0
	for _, t := range tols {
		if t > 0 {
			hi = math.Max(hi, 1+t)
			if t < 1 { // a tolerance of 100% or more has no lower edge on a log axis
				lo = math.Min(lo, 1-t)
			}
		}
	}
	for i, c := range res.Candidates {
		var pts plotter.XYs
		for j, r := range c.Rows {
			if r.Predicted == nil || r.Measured == nil {
				continue
			}
			if v := *r.Predicted / *r.Measured; *r.Measured > 0 && *r.Predicted > 0 && v > 0 && !math.IsInf(v, 1) {
				pts = append(pts, plotter.XY{X: float64(j), Y: v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				continue
			}
			off = append(off, fmt.Sprintf("#%d %s %s (predicted %s, measured %s)", c.Rank, c.Label, r.Metric,
				verify.FormatValue(r.Metric, r.Predicted), verify.FormatValue(r.Metric, r.Measured)))
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := scatter(p, pts, colorOf(i), draw.CircleGlyph{}, vg.Points(4))
		if err != nil {
			return nil, "", err
		}
		legend = append(legend, legendEntry{label: fmt.Sprintf("#%d %s", c.Rank, c.Label), thumbs: []plot.Thumbnailer{sc}})
	}
	if len(off) > 0 {
		leftOff = "left off the log axis: " + strings.Join(off, "; ")
	}
	if len(legend) == 0 {
		return nil, leftOff, nil
	}
	if _, err := xyLine(p, plotter.XYs{{X: -0.5, Y: 1}, {X: float64(n) - 0.5, Y: 1}}, len(res.Candidates), false); err != nil {
		return nil, "", err
	}
	for j, t := range tols {
		for _, y := range []float64{1 - t, 1 + t} {
			if t == 0 || y <= 0 {
				continue
			}
			if _, err := xyLine(p, plotter.XYs{{X: float64(j) - 0.4, Y: y}, {X: float64(j) + 0.4, Y: y}}, len(res.Candidates)+1, true); err != nil {
				return nil, "", err
			}
		}
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = ratioTicks{}
	p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
	drawableRange(&p.Y) // a ratio near the float64 maximum: its margin overflows
	ticks := make([]plot.Tick, len(verify.MetricNames))
	for j := range ticks {
		ticks[j] = plot.Tick{Value: float64(j), Label: fmt.Sprint(j + 1)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	svg, err := render(p, legend)
	if err != nil {
		return nil, "", err
	}
	caption := "Predicted ÷ measured per metric (1 = exact; dashed: the metric's tolerance). Metrics:"
	for j, m := range verify.MetricNames {
		tol := "not gated"
		if tols[j] > 0 {
			tol = "±" + verify.FormatTolerance(tols[j]) // as the table gives it
		}
		caption += fmt.Sprintf(" %d %s %s", j+1, m, tol)
		if j < n-1 {
			caption += ","
		}
	}
	caption += "."
	if leftOff != "" {
		caption += " " + strings.ToUpper(leftOff[:1]) + leftOff[1:] + "."
	}
	return &Figure{Name: "verify-scatter", Caption: caption, SVG: svg}, leftOff, nil
}

// ratioTicks mark a log axis of ratios at its powers of ten when it spans
// two or more of them, else at readableTicks' steps: predictions within
// a decade of the measured values, good ones above all, would otherwise
// get one label (1) or none.
type ratioTicks struct{}

func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	ticks := readableLogTicks{}.Ticks(min, max)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" && t.Value >= min && t.Value <= max {
			labelled++
		}
	}
	if labelled >= 2 {
		return ticks
	}
	return readableTicks{}.Ticks(min, max)
}

// costBasisNote says what a verification's ranked cost holds, and when
// it is hardware alone, whose energy was missing: --gpu may have measured
// some candidates and not others, or a candidate's energy was measured but
// not predicted (either leaves its cost, and so the ranking, on hardware).
func costBasisNote(res *verify.Result) string {
	if res.Ranking.Basis() == verify.CostHardwareEnergy {
		return "hardware + energy, as the sweep's estimate"
	}
	var ranked, unmeasured, unpredicted []string
	for _, c := range res.Candidates {
		if c.Status != verify.StatusOK || c.Measured.USDPerMOut == nil { // not ranked
			continue
		}
		name := fmt.Sprintf("#%d %s", c.Rank, c.Label)
		ranked = append(ranked, name)
		switch {
		case c.Measured.JPerOutTok == nil:
			unmeasured = append(unmeasured, name)
		case c.Predicted.JPerOutTok == nil:
			unpredicted = append(unpredicted, name)
		}
	}
	note := "hardware only: device-seconds × $/h"
	if len(unmeasured) == len(ranked) || len(unmeasured)+len(unpredicted) == 0 { // the latter: a file without the basis
		return note + ", energy not measured"
	}
	if len(unmeasured) > 0 {
		note += ", energy not measured for " + strings.Join(unmeasured, ", ")
	}
	if len(unpredicted) > 0 {
		note += ", energy not predicted for " + strings.Join(unpredicted, ", ")
	}
	return note
}
