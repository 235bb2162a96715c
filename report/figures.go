package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
)

// cdfFigure is the empirical CDF of one latency, one line per run; nil
// when no run has a value of it.
func cdfFigure(name, what string, runs []*Run, get func(*Latencies) []float64) (*Figure, error) {
	hi, found := 0.0, false
	for _, r := range runs {
		if v := get(r.Lat); len(v) > 0 {
			hi, found = math.Max(hi, v[len(v)-1]), true
		}
	}
	if !found {
		return nil, nil
	}
	scale, unit := timeUnit(hi)
	p := newPlot(what+" CDF", fmt.Sprintf("%s (%s)", what, unit), "fraction of requests ≤ x")
	var sets []plotter.XYs
	sampled := false
	for _, r := range runs {
		sets = append(sets, cdfPoints(get(r.Lat), scale, cdfLevels))
		sampled = sampled || len(get(r.Lat)) > cdfLevels
	}
	lo, top := math.Inf(1), 0.0
	for _, s := range sets {
		for _, pt := range s {
			if pt.X > 0 {
				lo = math.Min(lo, pt.X)
			}
			top = math.Max(top, pt.X)
		}
	}
	isLog := logAxis(&p.X, lo, top)
	var legend []legendEntry
	for i, r := range runs {
		pts := sets[i]
		if len(pts) == 0 {
			continue
		}
		if isLog {
			pts = clampPositive(pts, lo)
		}
		l, err := xyLine(p, pts, i, false)
		if err != nil {
			return nil, err
		}
		// the share of requests within x holds until the next request's
		// latency: a step, not a slope between two requests
		l.StepStyle = plotter.PostStep
		v := get(r.Lat)
		legend = append(legend, legendEntry{
			label:  fmt.Sprintf("%s — P50 %s, P99 %s (n=%d)", r.Name, numfmt.Secs(Quantile(v, .5)), numfmt.Secs(Quantile(v, .99)), len(v)),
			thumbs: []plot.Thumbnailer{l},
		})
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	drawableRange(&p.X)
	caption := fmt.Sprintf("%s of successful, non-warm-up requests", what)
	if isLog {
		caption += " (log x axis)"
	}
	if sampled {
		caption += fmt.Sprintf("; a line of more than %d requests is drawn at %d evenly spaced quantiles, the P50 and P99 among them", cdfLevels, cdfLevels)
	}
	svg, err := render(p, legend)
	if err != nil {
		return nil, err
	}
	return &Figure{Name: name, Caption: caption + ".", SVG: svg}, nil
}

// loadFigures draws output throughput and P99 TTFT against the arrival-rate
// scale for each row's load curve.
func loadFigures(name, sweepName string, rows []*sweep.Row) ([]Block, error) {
	thr := newPlot("Throughput vs offered load — "+sweepName, "arrival-rate scale (× the trace's rate)", "output tokens/s")
	lat := newPlot("P99 TTFT vs offered load — "+sweepName, "arrival-rate scale (× the trace's rate)", "P99 TTFT (s)")
	var legThr, legLat []legendEntry
	var knees, caps, bounds, kneesLat, capsLat, boundsLat plotter.XYs
	var unmarked []string // marks whose point has no finite throughput (a hand-edited file)
	hiLat, loLat := 0.0, math.Inf(1)
	loS, hiS := math.Inf(1), 0.0
	nonPos := false // a scale ≤ 0 (a hand-edited file) has no place on a log axis
	for i, r := range rows {
		curve := append([]sweep.CurvePoint{}, r.Curve...)
		sort.SliceStable(curve, func(a, b int) bool { return curve[a].Scale < curve[b].Scale })
		label := r.Label
		if r.Rank > 0 {
			label = fmt.Sprintf("#%d %s", r.Rank, r.Label)
		}
		// mark adds a knee or capacity mark at c, once per row (a scale
		// can repeat in a file), unless c's throughput cannot be drawn.
		kneeDone, capDone := false, false
		mark := func(done *bool, what string, c sweep.CurvePoint, thr, lat *plotter.XYs) {
			if *done {
				return
			}
			*done = true
			if !known(c.OutTokPerSec) {
				unmarked = append(unmarked, fmt.Sprintf("%s of %s at scale %g (output tok/s %v)", what, label, c.Scale, c.OutTokPerSec))
				return
			}
			*thr = append(*thr, plotter.XY{X: c.Scale, Y: c.OutTokPerSec})
			if known(c.TTFTP99) && c.TTFTP99 > 0 {
				*lat = append(*lat, plotter.XY{X: c.Scale, Y: c.TTFTP99})
			}
		}
		var t, l plotter.XYs
		for _, c := range curve {
			if known(c.Scale) && c.Scale > 0 {
				loS, hiS = math.Min(loS, c.Scale), math.Max(hiS, c.Scale)
			}
			nonPos = nonPos || known(c.Scale) && c.Scale <= 0
			if known(c.Scale) && known(c.OutTokPerSec) {
				t = append(t, plotter.XY{X: c.Scale, Y: c.OutTokPerSec})
			}
			if known(c.Scale) && known(c.TTFTP99) && c.TTFTP99 > 0 {
				l = append(l, plotter.XY{X: c.Scale, Y: c.TTFTP99})
				hiLat, loLat = math.Max(hiLat, c.TTFTP99), math.Min(loLat, c.TTFTP99)
			}
			if known(r.KneeScale) && c.Scale == r.KneeScale {
				mark(&kneeDone, "knee", c, &knees, &kneesLat)
			}
			// a swept rate_scale is where the row was run, not its capacity
			if r.Outcome == sweep.OutcomeOK && c.Scale == r.Scale && !(r.RateScale > 0) {
				if r.CapacityLowerBound() {
					mark(&capDone, "SLO capacity (a lower bound)", c, &bounds, &boundsLat)
				} else {
					mark(&capDone, "SLO capacity", c, &caps, &capsLat)
				}
			}
		}
		if len(t) > 0 {
			ln, err := xyLine(thr, t, i, false)
			if err != nil {
				return nil, err
			}
			legThr = append(legThr, legendEntry{label, []plot.Thumbnailer{ln}})
		}
		if len(l) > 0 {
			ln, err := xyLine(lat, l, i, false)
			if err != nil {
				return nil, err
			}
			legLat = append(legLat, legendEntry{label, []plot.Thumbnailer{ln}})
		}
	}
	marks := func(p *plot.Plot, leg *[]legendEntry, knees, caps, bounds plotter.XYs) error {
		if len(knees) > 0 {
			s, err := scatter(p, knees, color.Black, draw.RingGlyph{}, vg.Points(7))
			if err != nil {
				return err
			}
			*leg = append(*leg, legendEntry{"knee (more load adds little throughput, P99 jumps)", []plot.Thumbnailer{s}})
		}
		if len(caps) > 0 {
			s, err := scatter(p, caps, color.Gray{0x40}, draw.PyramidGlyph{}, vg.Points(5))
			if err != nil {
				return err
			}
			*leg = append(*leg, legendEntry{"SLO capacity (highest load meeting the SLO)", []plot.Thumbnailer{s}})
		}
		// an open triangle: the capacity is at least there, the search
		// stopped before the SLO broke
		if len(bounds) > 0 {
			s, err := scatter(p, bounds, color.Gray{0x40}, draw.TriangleGlyph{}, vg.Points(5))
			if err != nil {
				return err
			}
			*leg = append(*leg, legendEntry{"SLO capacity ≥ (the SLO held up to the search's limit)", []plot.Thumbnailer{s}})
		}
		return nil
	}
	if err := marks(thr, &legThr, knees, caps, bounds); err != nil {
		return nil, err
	}
	if err := marks(lat, &legLat, kneesLat, capsLat, boundsLat); err != nil {
		return nil, err
	}
	thr.Y.Min = 0
	logY := logAxis(&lat.Y, loLat, hiLat)
	logX := !nonPos && log2Axis(&thr.X, loS, hiS)
	if logX {
		log2Axis(&lat.X, loS, hiS)
	}
	for _, p := range []*plot.Plot{thr, lat} {
		drawableRange(&p.X)
		drawableRange(&p.Y)
	}
	var out []Block
	for _, f := range []struct {
		p   *plot.Plot
		leg []legendEntry
		n   string
		cap string
	}{
		{thr, legThr, name + "-throughput", "Output throughput as the offered load grows" + logAxesNote("load", logX, "y", false) + "." + notMarked(unmarked)},
		{lat, legLat, name + "-p99", "P99 TTFT as the offered load grows" + logAxesNote("load", logX, "y", logY) + "."},
	} {
		if len(f.leg) == 0 {
			continue
		}
		svg, err := render(f.p, f.leg)
		if err != nil {
			return nil, err
		}
		out = append(out, &Figure{Name: f.n, Caption: f.cap, SVG: svg})
	}
	return out, nil
}

// logAxesNote is the caption's note of a figure's log axes, named by
// xName and yName, as " (log load axis, log y axis)"; "" when both are
// linear. The caption is the figure's alt text, so it says what only the
// ticks show.
func logAxesNote(xName string, logX bool, yName string, logY bool) string {
	var axes []string
	if logX {
		axes = append(axes, "log "+xName+" axis")
	}
	if logY {
		axes = append(axes, "log "+yName+" axis")
	}
	if len(axes) == 0 {
		return ""
	}
	return " (" + strings.Join(axes, ", ") + ")"
}

// notMarked is the caption's note of the marks left out; "" when none.
func notMarked(marks []string) string {
	if len(marks) == 0 {
		return ""
	}
	return " Not marked, as the results file gives no finite throughput there: " + strings.Join(marks, "; ") + "."
}

// paretoFigures draws cost against P99 TTFT and against throughput per
// device (thrLabel names which throughput), the respective front
// highlighted and joined. A caption names the plotted capped configs,
// as the tables mark their cost "≤" and their throughput "≥".
func paretoFigures(name, what, thrLabel string, pts []paretoPoint) ([]Block, error) {
	var out []Block
	for _, k := range []struct {
		suffix, title, xLabel, caption, cappedNote string
		x                                          func(paretoPoint) float64
		front                                      func(paretoPoint) bool
	}{
		{"latency", "Cost vs P99 TTFT — " + what, "P99 TTFT (s)", "Lower-left is better; the front joins the configs no other config beats on both",
			"their cost is an upper bound (≤ in the tables), lower at the true, higher capacity.",
			func(p paretoPoint) float64 { return p.p99 }, func(p paretoPoint) bool { return p.frontLat }},
		{"throughput", "Cost vs throughput per GPU — " + what, thrLabel, "Lower-right is better; the front joins the configs no other config beats on both",
			"they lie at least that far towards the front (cost ≤, throughput ≥ in the tables), " +
				"as at the true, higher capacity the cost is lower and the throughput higher.",
			func(p paretoPoint) float64 { return p.perDev }, func(p paretoPoint) bool { return p.frontThr }},
	} {
		var all, front, cappedXY plotter.XYs
		var frontLabels, capped, cappedOff []string
		lo, hi := math.Inf(1), 0.0
		costLo, costHi := math.Inf(1), 0.0
		for _, p := range pts {
			x := k.x(p)
			if !known(x) || !known(p.cost) {
				continue
			}
			xy := plotter.XY{X: x, Y: p.cost}
			if p.capped {
				capped, cappedXY = append(capped, p.label), append(cappedXY, xy)
				if !k.front(p) {
					cappedOff = append(cappedOff, p.label)
				}
			}
			if k.front(p) {
				front = append(front, xy)
				frontLabels = append(frontLabels, p.label)
			} else {
				all = append(all, xy)
			}
			if x > 0 {
				lo = math.Min(lo, x)
			}
			hi = math.Max(hi, x)
			if p.cost > 0 {
				costLo = math.Min(costLo, p.cost)
			}
			costHi = math.Max(costHi, p.cost)
		}
		if len(all)+len(front) == 0 {
			continue
		}
		var marks []mark
		if len(all) <= 8 {
			for _, p := range pts {
				if x := k.x(p); known(x) && known(p.cost) && !k.front(p) {
					marks = append(marks, mark{plotter.XY{X: x, Y: p.cost}, truncate(p.label, 28), false})
				}
			}
		}
		p := newPlot(k.title, k.xLabel, "$ per 1M output tokens (estimated)")
		isLog := k.suffix == "latency" && logAxis(&p.X, lo, hi)
		if isLog {
			all, front, cappedXY = clampPositive(all, lo), clampPositive(front, lo), clampPositive(cappedXY, lo)
		}
		// costs over decades (one GPU against eight) would crush the
		// cheap configs, the front among them, onto a linear axis's floor
		logCost := logAxis(&p.Y, costLo, costHi)
		if logCost {
			all, front, cappedXY = clampPositiveY(all, costLo), clampPositiveY(front, costLo), clampPositiveY(cappedXY, costLo)
		}
		var leg []legendEntry
		if len(all) > 0 {
			s, err := scatter(p, all, grey, draw.CircleGlyph{}, vg.Points(3))
			if err != nil {
				return nil, err
			}
			leg = append(leg, legendEntry{fmt.Sprintf("other configs (%d)", len(all)), []plot.Thumbnailer{s}})

		}
		if len(front) > 0 {
			idx := make([]int, len(front))
			for i := range idx {
				idx[i] = i
			}
			sort.Slice(idx, func(a, b int) bool { return front[idx[a]].X < front[idx[b]].X })
			sorted := make(plotter.XYs, len(front))
			for i, j := range idx {
				sorted[i] = front[j]
			}
			ln, err := xyLine(p, sorted, 3, false)
			if err != nil {
				return nil, err
			}
			s, err := scatter(p, sorted, colorOf(3), draw.CircleGlyph{}, vg.Points(4.5))
			if err != nil {
				return nil, err
			}
			leg = append(leg, legendEntry{fmt.Sprintf("Pareto front (%d)", len(front)), []plot.Thumbnailer{ln, s}})
			if len(front) <= 8 {
				for i, j := range idx {
					marks = append(marks, mark{sorted[i], truncate(frontLabels[j], 28), true})
				}
			}
		}
		// a ring around each capped point: with more points than labels,
		// only it tells which points are placed at the search's limit
		if len(cappedXY) > 0 {
			s, err := scatter(p, cappedXY, color.Gray{0x40}, draw.RingGlyph{}, vg.Points(7))
			if err != nil {
				return nil, err
			}
			leg = append(leg, legendEntry{fmt.Sprintf("capacity capped by the search (%d)", len(cappedXY)), []plot.Thumbnailer{s}})
		}
		for i := range marks {
			if isLog {
				marks[i].xy.X = math.Max(marks[i].xy.X, lo)
			}
			if logCost {
				marks[i].xy.Y = math.Max(marks[i].xy.Y, costLo)
			}
		}
		if err := addMarks(p, marks, isLog, logCost); err != nil {
			return nil, err
		}
		p.Y.Min = 0
		if k.suffix == "throughput" {
			p.X.Min = 0
		}
		// room on the right for point labels
		p.X.Max += (p.X.Max - p.X.Min) * 0.15
		if isLog {
			p.X.Min, p.X.Max = lo/2, hi*2.5
		}
		p.Y.Max *= 1.08
		if logCost {
			p.Y.Min, p.Y.Max = costLo/1.5, costHi*1.5
		}
		drawableRange(&p.X)
		drawableRange(&p.Y)
		svg, err := render(p, leg)
		if err != nil {
			return nil, err
		}
		caption := k.caption + logAxesNote("x", isLog, "cost", logCost) + "."
		if len(capped) > 0 {
			caption += " The ringed points, of " + someNames(capped) + ", are placed at the search's limit, where the SLO still held: " + k.cappedNote
		}
		caption += mayJoinFront(cappedOff)
		out = append(out, &Figure{Name: name + "-" + k.suffix, Caption: caption, SVG: svg})
	}
	return out, nil
}

// mayJoinFront is the caption's note of the capped configs left off the
// front: beaten only at the search's limit, they may not be beaten at
// their true capacity, where their cost is lower. "" when none.
func mayJoinFront(labels []string) string {
	switch len(labels) {
	case 0:
		return ""
	case 1:
		return " Off the front there, " + labels[0] + " may join the front at its true capacity."
	}
	return " Off the front there, " + someNames(labels) + " may each join the front at their true capacity."
}

// captionNames is how many configs a caption names before it counts
// the rest: a large sweep can cap hundreds.
const captionNames = 8

// someNames joins the first captionNames labels and counts the rest.
func someNames(labels []string) string {
	if len(labels) <= captionNames {
		return strings.Join(labels, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(labels[:captionNames], ", "), len(labels)-captionNames)
}

// mark is a labelled point of a scatter plot.
type mark struct {
	xy    plotter.XY
	label string
	front bool
}

// addMarks labels points, merging the labels of points that would overlap
// (closer than a few percent of the axes' span) into one "a, b" label.
func addMarks(p *plot.Plot, marks []mark, logX, logY bool) error {
	if len(marks) == 0 {
		return nil
	}
	scaled := func(log bool) func(float64) float64 {
		if log {
			return math.Log10
		}
		return func(v float64) float64 { return v }
	}
	nx, ny := scaled(logX), scaled(logY)
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), 0.0, 0.0 // a linear y axis starts at 0
	if logY {
		minY, maxY = math.Inf(1), math.Inf(-1)
	}
	for _, m := range marks {
		minX, maxX = math.Min(minX, nx(m.xy.X)), math.Max(maxX, nx(m.xy.X))
		minY, maxY = math.Min(minY, ny(m.xy.Y)), math.Max(maxY, ny(m.xy.Y))
	}
	spanX, spanY := math.Max(maxX-minX, 1e-12), math.Max(maxY-minY, 1e-12)
	// front points first, so a merged label takes the front's colour
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].front && !marks[j].front })
	var groups [][]mark
	for _, m := range marks {
		placed := false
		for gi, g := range groups {
			dx, dy := (nx(m.xy.X)-nx(g[0].xy.X))/spanX, (ny(m.xy.Y)-ny(g[0].xy.Y))/spanY
			if math.Abs(dx) < 0.12 && math.Abs(dy) < 0.06 {
				groups[gi] = append(g, m)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []mark{m})
		}
	}
	for _, g := range groups {
		names := make([]string, len(g))
		for i, m := range g {
			names[i] = m.label
		}
		c := colorOf(7)
		if g[0].front {
			c = colorOf(3)
		}
		if err := addLabels(p, plotter.XYs{g[0].xy}, []string{strings.Join(names, ", ")}, c); err != nil {
			return err
		}
	}
	return nil
}

// addLabels writes each label beside its point.
func addLabels(p *plot.Plot, pts plotter.XYs, labels []string, c color.Color) error {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = sans(9, false)
		l.TextStyle[i].Color = c
	}
	l.Offset = vg.Point{X: 6, Y: 4}
	p.Add(l)
	return nil
}

// kvFigure draws KV occupancy (% of blocks) over time: one panel per run,
// each with its own time axis (runs of one trace can differ in makespan
// by orders of magnitude). A panel is titled by its run, its name cut in
// the middle to the panel's width as measured in the title's font, or,
// when two names so cut read alike, by pos, its row in the comparison
// table; its blocks, mean and peak go on a line of their own, which no
// name cuts short.
func kvFigure(runs []*Run, pos []int) (*Figure, error) {
	cols := min(len(runs), 2)
	titleStyle := text.Style{Font: sans(11, true), Handler: plot.DefaultTextHandler}
	titleW := (figW-gridPadX*vg.Length(cols-1))/vg.Length(cols) - 2*titleInset
	names := make([]string, len(runs))
	seen, byRow := map[string]bool{}, false
	for i, r := range runs {
		names[i] = fitWidth(r.Name, titleStyle, titleW)
		if seen[names[i]] {
			for j := range runs {
				names[j] = fitWidth(fmt.Sprintf("row %d: %s", pos[j], runs[j].Name), titleStyle, titleW)
			}
			byRow = true
			break
		}
		seen[names[i]] = true
	}
	var plots []*plot.Plot
	for i, r := range runs {
		s := r.Result.Summary
		title := fmt.Sprintf("%s\n%d blocks, mean %s, peak %s", names[i], s.KV.TotalBlocks, kvMeanPct(s), numfmt.Pct(s.KV.MaxUtil))
		p := newPlot(title, "time since first arrival (s)", "KV blocks in use (%)")
		p.Title.TextStyle.Font = titleStyle.Font
		lines := kvLines(r)
		for j, l := range lines {
			ln, err := xyLine(p, l.pts, i+j, false)
			if err != nil {
				return nil, err
			}
			ln.Width = vg.Points(1.2)
			if len(l.pts) == 1 { // a line through one point draws nothing
				if _, err := scatter(p, l.pts, colorOf(i+j), draw.CircleGlyph{}, vg.Points(3)); err != nil {
					return nil, err
				}
			}
			if len(lines) > 1 {
				p.Legend.Add(l.label, ln)
			}
		}
		p.Legend.Top = true
		p.Y.Min, p.Y.Max = 0, 105
		p.X.Min = 0
		drawableRange(&p.X) // one sample, at the first arrival: 0 to 1 s, not -1 to 1
		plots = append(plots, p)
	}
	h := figH
	if cols > 1 {
		h = 2.7 * vg.Inch
	}
	svg, err := renderGrid(plots, cols, h)
	if err != nil {
		return nil, err
	}
	caption := "Peak KV blocks referenced per time bucket, as a share of the blocks that fit; one panel per run, each on its own time axis."
	for _, r := range runs {
		if len(r.Result.Pools) > 0 {
			caption += fmt.Sprintf(" A cluster run has a line per replica, or, past %d replicas, the mean and the max across them of each replica's peak in each of %d equal buckets (a replica with no sample in one counts its last).", maxKVLines, kvBuckets)
			break
		}
	}
	if byRow { // not by a name's prefix: a run may be named "row …" itself
		caption += " Row N is the run's row in the comparison table."
	}
	return &Figure{Name: "kv-utilization", Caption: caption, SVG: svg}, nil
}

// maxKVLines is the most replicas a cluster run's KV panel draws a line
// for each; more would not be told apart, so they are drawn as their mean
// and their max.
const maxKVLines = 8

// kvBuckets is how many time buckets the mean and max of a cluster's
// replicas are taken over: replicas' series have buckets of their own
// widths.
const kvBuckets = 500

type kvLine struct {
	label string
	pts   plotter.XYs // s since the first arrival, % of the blocks in use
}

// kvLines is what r's KV panel draws: its series, or a cluster run's
// replicas' (its own Series is empty), one line each up to maxKVLines
// replicas, else their mean and max.
func kvLines(r *Run) []kvLine {
	first := r.Result.Summary.FirstArrival
	line := func(kv sim.KVStats) plotter.XYs {
		var pts plotter.XYs
		for _, s := range kv.Series {
			pts = append(pts, plotter.XY{X: s.T - first, Y: 100 * float64(s.Used) / float64(kv.TotalBlocks)})
		}
		return pts
	}
	if len(r.Result.Pools) == 0 {
		if kv := r.Result.Summary.KV; kv.TotalBlocks > 0 && len(kv.Series) > 0 {
			return []kvLine{{pts: line(kv)}}
		}
		return nil
	}
	var reps []kvLine
	for _, p := range r.Result.Pools {
		for j, s := range p.Replicas {
			if s.KV.TotalBlocks > 0 && len(s.KV.Series) > 0 {
				label := fmt.Sprintf("replica %d", j+1)
				if len(r.Result.Pools) > 1 {
					label = fmt.Sprintf("%s replica %d", p.Name, j+1)
				}
				reps = append(reps, kvLine{label, line(s.KV)})
			}
		}
	}
	if len(reps) <= maxKVLines {
		return reps
	}
	span := r.Result.Summary.Makespan
	for _, l := range reps {
		span = max(span, l.pts[len(l.pts)-1].X)
	}
	width := span / kvBuckets
	if !(width > 0) {
		width = 1
	}
	mean := make(plotter.XYs, kvBuckets)
	peak := make(plotter.XYs, kvBuckets)
	for _, l := range reps {
		k, last := 0, 0.0
		for b := range kvBuckets {
			v, end := last, float64(b+1)*width
			if k < len(l.pts) && (l.pts[k].X < end || b == kvBuckets-1) {
				v = 0 // a sample in the bucket: its peak, not the last
			}
			for ; k < len(l.pts) && (l.pts[k].X < end || b == kvBuckets-1); k++ {
				v, last = max(v, l.pts[k].Y), l.pts[k].Y
			}
			mean[b].Y += v / float64(len(reps))
			peak[b].Y = max(peak[b].Y, v)
		}
	}
	for b := range kvBuckets {
		mean[b].X, peak[b].X = float64(b)*width, float64(b)*width
	}
	n := len(reps)
	return []kvLine{{fmt.Sprintf("mean of %d replicas", n), mean}, {fmt.Sprintf("max of %d replicas", n), peak}}
}

// runCostFigure stacks hardware and energy dollars per 1M output tokens;
// a bar is named by its run, or, when two names cut to the bar's width
// read alike, by pos, its row in the table. The caption names the runs
// whose energy was not measured: their bars are hardware alone.
func runCostFigure(runs []*Run, pos []int) (*Figure, error) {
	hw, en := make(plotter.Values, len(runs)), make(plotter.Values, len(runs))
	names := make([]string, len(runs))
	var unmeasured []string
	for i, r := range runs {
		if energyUnmeasured(r) {
			unmeasured = append(unmeasured, r.Name)
		}
		c, out := r.Result.Cost, float64(r.Result.Summary.OutputTokens)
		hw[i] = c.HardwareUSD / out * 1e6
		if c.EnergyUSD > 0 {
			en[i] = c.EnergyUSD / out * 1e6
		}
		names[i] = truncate(r.Name, 18)
	}
	xLabel, seen := "", map[string]bool{}
	for _, n := range names {
		if seen[n] {
			for i := range names {
				names[i] = fmt.Sprintf("row %d", pos[i])
			}
			xLabel = "run (row in the table above)"
			break
		}
		seen[n] = true
	}
	caption := "Hardware amortization (device-seconds × $/h) and energy ($/kWh × PUE) per million output tokens."
	if len(unmeasured) > 0 {
		caption += " Energy not measured for " + strings.Join(unmeasured, ", ") + ": their bars are hardware amortization alone."
	}
	p := newPlot("Estimated cost per 1M output tokens by factor", xLabel, "$ per 1M output tokens")
	return stackedBars(p, "cost-runs", names, []string{"hardware amortization", "energy (× PUE)"}, []plotter.Values{hw, en}, caption)
}

// sweepCostFigure stacks the cost at saturation and the tail penalty; a
// bar is named as its config's row in the table (configName). The
// caption names the table's configs without a bar (noBar), so that none
// reads as lost, and those whose bar is an upper bound (capped), as the
// table marks their cost "≤".
func sweepCostFigure(name, sweepName string, rows []*sweep.Row, noBar []string) (*Figure, error) {
	sat, pen := make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
	names := make([]string, len(rows))
	var capped []string
	for i, r := range rows {
		sat[i], pen[i] = sweepCostSegments(r)
		names[i] = configName(r)
		if r.CapacityLowerBound() {
			capped = append(capped, names[i])
		}
	}
	caption := "Estimated $/1M output tokens at " + evaluatedAt(rows) + ": each bar is the cost at the SLO, split into the cost at saturation " +
		"and the tail-latency penalty. A config cheaper at the SLO than at saturation (a negative penalty, in the table) has no penalty segment."
	if len(capped) > 0 {
		caption += " The bars of " + strings.Join(capped, ", ") + " are upper bounds (≤ in the table): the SLO held up to the search's limit, " +
			"so each is the cost at that load, and at the true, higher capacity the cost and penalty are lower."
	}
	if len(noBar) > 0 {
		caption += " No bar for " + strings.Join(noBar, ", ") + "."
	}
	p := newPlot("Cost at the SLO = saturation cost + tail penalty — "+sweepName, "config (as in the table above)", "$ per 1M output tokens")
	return stackedBars(p, name, names, []string{"cost at saturation (hardware + energy), or at the SLO where lower",
		"tail-latency penalty (cost at the SLO above saturation)"}, []plotter.Values{sat, pen}, caption)
}

// sweepCostSegments splits a config's cost at the SLO into the part
// up to the saturation cost and the tail penalty over it. A config can
// cost less per token at the SLO than at its saturation point (the
// curve's highest throughput, not its cheapest); its penalty is then
// negative, and its bar is the cost at the SLO alone.
func sweepCostSegments(r *sweep.Row) (base, penalty float64) {
	base = math.Min(r.SatUSDPerMOut, r.USDPerMOutEst)
	return base, r.USDPerMOutEst - base
}

func stackedBars(p *plot.Plot, name string, names, series []string, vals []plotter.Values, caption string) (*Figure, error) {
	w := vg.Points(math.Min(60, 420/float64(len(names))))
	var prev *plotter.BarChart
	var leg []legendEntry
	for i, v := range vals {
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return nil, err
		}
		b.Color = colorOf(i)
		b.LineStyle.Width = 0
		if prev != nil {
			b.StackOn(prev)
		}
		p.Add(b)
		leg = append(leg, legendEntry{series[i], []plot.Thumbnailer{b}})
		prev = b
	}
	p.NominalX(names...)
	p.X.Tick.Label.Font = sans(10, false)
	top := 0.0
	for i := range names {
		sum := 0.0
		for _, v := range vals {
			sum += v[i]
		}
		top = math.Max(top, sum)
	}
	p.Y.Min, p.Y.Max = 0, top*1.08
	drawableRange(&p.Y)
	svg, err := render(p, leg)
	if err != nil {
		return nil, err
	}
	return &Figure{Name: name, Caption: caption, SVG: svg}, nil
}
