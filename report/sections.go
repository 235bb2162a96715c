package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/sim/sweep"
)

// Sweep rows shown in tables and curves: the best ranked, then the rest of
// the Pareto front.
const (
	maxRanked = 10
	maxShown  = 20
	maxCurves = 6
)

// shownRows picks the rows of a sweep worth a table line: ranked rows by
// rank, then Pareto rows, else the cheapest rows that ran.
func shownRows(sw *Sweep) []*sweep.Row {
	var ranked, pareto, ok []*sweep.Row
	for i := range sw.Rows {
		r := &sw.Rows[i]
		switch {
		case r.Rank > 0:
			ranked = append(ranked, r)
		case r.OnPareto || r.ParetoLatency || r.ParetoThroughput:
			pareto = append(pareto, r)
		case r.Outcome == sweep.OutcomeOK || r.Outcome == sweep.OutcomeSLOViolated:
			ok = append(ok, r)
		}
	}
	sort.Slice(ranked, func(i, j int) bool { return ranked[i].Rank < ranked[j].Rank })
	// the fronts are flagged among ranked rows: those past the best
	// ranked are the rest of the front
	for _, r := range ranked[min(len(ranked), maxRanked):] {
		if r.OnPareto || r.ParetoLatency || r.ParetoThroughput {
			pareto = append(pareto, r)
		}
	}
	byCost := func(rs []*sweep.Row) {
		sort.SliceStable(rs, func(i, j int) bool { return less(rs[i].USDPerMOutEst, rs[j].USDPerMOutEst) })
	}
	byCost(pareto)
	byCost(ok)
	out := append([]*sweep.Row(nil), ranked[:min(len(ranked), maxRanked)]...)
	out = append(out, pareto...)
	if len(out) == 0 {
		out = ok
	}
	return out[:min(len(out), maxShown)]
}

// evaluatedAt is the load a sweep's rows were run at: the SLO capacity,
// or the scale a rate_scale axis fixed, which is no capacity (the SLO may
// hold far beyond it).
func evaluatedAt(rows []*sweep.Row) string {
	for _, r := range rows {
		if r.RateScale > 0 {
			return "the swept rate_scale"
		}
	}
	return "the SLO capacity"
}

// less orders known values before unknown ones.
func less(a, b float64) bool {
	if !known(b) {
		return known(a)
	}
	return known(a) && a < b
}

// configName is how tables and figures alike name a sweep's config:
// "#N" by its rank, else "index=N", as compare selects it.
func configName(r *sweep.Row) string {
	if r.Rank > 0 {
		return fmt.Sprintf("#%d", r.Rank)
	}
	return fmt.Sprintf("index=%d", r.Index)
}

func rowMark(r *sweep.Row) string {
	s := configName(r)
	if r.OnPareto || r.ParetoLatency || r.ParetoThroughput {
		s += " ★"
	}
	return s
}

// reqPerSecCol is the comparison table's req/s column (a goodput column,
// when asked for, goes in after output tok/s).
const reqPerSecCol = 5

// outTokPerSecCol is the comparison table's "output tok/s" column, next
// to req/s.
const outTokPerSecCol = reqPerSecCol + 1

// estCostFromEnd places the comparison table's "$/1M out (est.)" column
// from the row's end: it is last but the billed cost.
const estCostFromEnd = 2

// ComparisonSection is the side-by-side table of every run and the shown
// configs of every sweep.
type ComparisonSection struct{}

func (ComparisonSection) Title() string { return "Comparison" }

func (ComparisonSection) Blocks(in *Inputs) ([]Block, error) {
	// the counts read as their header: completed/requests · failed
	header := []string{"run / config", "source", "policy", "batch limit", "done/requests · failed", "req/s", "output tok/s",
		"P50 TTFT", "P99 TTFT", "mean TPOT", "P99 TPOT", "P99 E2E", "device-s", "$/1M out (est.)", "$/1M out (billed)"}
	numeric := []bool{false, false, false, false, true, true, true, true, true, true, true, true, true, true, true}
	row := func(name, mark string, r *Run, done string) []string {
		m := r.Metrics
		if mark != "" {
			name = mark + " " + name
		}
		cells := []string{name, r.Kind, dash(r.Policy), dash(r.BatchLimit), done, fmtF(m.ReqPerSec, 2), fmtF(m.OutTokPerSec, 0),
			numfmt.Secs(m.TTFTP50), numfmt.Secs(m.TTFTP99), numfmt.Secs(m.TPOTMean), numfmt.Secs(m.TPOTP99), numfmt.Secs(m.E2EP99),
			fmtF(m.DeviceSeconds, 0), numfmt.USD(m.USDPerMOutEst), numfmt.USD(m.USDPerMOutBilled)}
		if !in.SLO.IsZero() {
			cells = slices.Insert(cells, 7, fmtF(m.Goodput, 2))
		}
		return cells
	}
	caption := "Runs. Throughput is completed requests and output tokens per second of wall time; latencies are of " +
		"successful, non-warm-up requests; — means not measured."
	if !in.SLO.IsZero() {
		header = slices.Insert(header, 7, "goodput req/s")
		numeric = slices.Insert(numeric, 7, true)
		caption += fmt.Sprintf(" Goodput is the successes within %s a second, for runs with a per-request trace.", in.SLO)
	}
	var blocks []Block
	if len(in.Runs) > 0 {
		t := &Table{Header: header, Numeric: numeric, Caption: caption}
		for _, r := range in.Runs {
			m := r.Metrics
			t.Rows = append(t.Rows, row(r.Name, "", r, fmt.Sprintf("%d/%d · %d", m.Completed, m.Requests, m.Failed)))
		}
		blocks = append(blocks, t)
		// A run that stopped (an out-of-memory batch) is measured up to
		// the stop: say so, as simulate prints its outcome.
		for _, r := range in.Runs {
			if r.Result != nil && r.Result.Outcome != "" && r.Result.Outcome != "ok" {
				blocks = append(blocks, &Text{fmt.Sprintf("%s: the run stopped early: %s. Its figures cover the run up to then.", r.Name, r.Result.Outcome)})
			}
		}
	}
	for _, sw := range in.Sweeps {
		rows := shownRows(sw)
		if len(sw.Rows) == 0 { // a shard of more shards than configs
			blocks = append(blocks, &Text{fmt.Sprintf("Sweep %s holds no config.", sw.Name)})
			continue
		}
		if len(rows) == 0 {
			blocks = append(blocks, &Text{fmt.Sprintf("Sweep %s: none of its %d configs has a result (%s).", sw.Name, len(sw.Rows), outcomeCounts(sw.Rows))})
			continue
		}
		t := &Table{Header: header, Numeric: numeric, Caption: fmt.Sprintf("Sweep %s: %d of %d configs "+
			"(#N = rank among configs meeting the SLO, else index=N, the config's index; ★ = on a Pareto front), each at %s.",
			sw.Name, len(rows), len(sw.Rows), evaluatedAt(rows))}
		lowerBound, upperBound := false, false
		for _, r := range rows {
			rr := RowRun(sw, r)
			cells := row(r.Label, rowMark(r), rr, r.Outcome)
			// a capacity the SLO held up to the search's limit is at least
			// this load, carrying at least this output, as the sweep's own
			// table prints its scale "≥", and its cost per token there is
			// at most that at the capacity
			if r.CapacityLowerBound() {
				for _, c := range []int{reqPerSecCol, outTokPerSecCol} {
					cells[c] = numfmt.AtLeast(cells[c])
					lowerBound = lowerBound || cells[c] != "—"
				}
				est := len(cells) - estCostFromEnd
				cells[est] = numfmt.AtMost(cells[est])
				upperBound = upperBound || cells[est] != "—"
			}
			t.Rows = append(t.Rows, cells)
			t.Marked = append(t.Marked, r.OnPareto || r.ParetoLatency || r.ParetoThroughput)
		}
		if lowerBound {
			t.Caption += " ≥: the SLO held up to the search's limit, so the capacity is at least that rate, and its output at least that."
		}
		if upperBound {
			t.Caption += " ≤: the cost per token at that rate; at the true, higher capacity it is lower."
		}
		t.Caption += othersNote(sw.Rows, rows)
		t.Header = append([]string{}, header...)
		t.Header[4] = "outcome"
		blocks = append(blocks, t)
	}
	return blocks, nil
}

// othersNote counts the outcomes of a sweep's configs the table leaves
// out, so that infeasible ones do not read as merely left off for room;
// "" when it shows them all.
func othersNote(all []sweep.Row, shown []*sweep.Row) string {
	isShown := map[*sweep.Row]bool{}
	for _, r := range shown {
		isShown[r] = true
	}
	var others []sweep.Row
	for i := range all {
		if !isShown[&all[i]] {
			others = append(others, all[i])
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf(" The other %d: %s.", len(others), outcomeCounts(others))
}

// outcomeCounts counts rows by outcome, in the order the sweep prints
// them: "infeasible 11, skipped 1".
func outcomeCounts(rows []sweep.Row) string {
	n := map[string]int{}
	for _, r := range rows {
		n[r.Outcome]++
	}
	var parts []string
	for _, o := range []string{sweep.OutcomeOK, sweep.OutcomeInfeasible, sweep.OutcomeSLOViolated, sweep.OutcomeError, sweep.OutcomeSkipped} {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, n[o]))
		}
		delete(n, o)
	}
	for _, o := range slices.Sorted(maps.Keys(n)) { // a file's own
		parts = append(parts, fmt.Sprintf("%s %d", o, n[o]))
	}
	return strings.Join(parts, ", ")
}

// LatencyCDFSection draws the TTFT and E2E distributions, one line per
// run that has per-request rows.
type LatencyCDFSection struct{}

func (LatencyCDFSection) Title() string { return "Latency distributions" }

func (LatencyCDFSection) Blocks(in *Inputs) ([]Block, error) {
	var runs []*Run
	for _, r := range in.Runs {
		if r.Lat != nil && len(r.Lat.E2E) > 0 {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, nil
	}
	var blocks []Block
	for _, k := range []struct {
		name, title string
		get         func(*Latencies) []float64
	}{
		{"ttft", "TTFT", func(l *Latencies) []float64 { return l.TTFT }},
		{"e2e", "E2E latency", func(l *Latencies) []float64 { return l.E2E }},
	} {
		fig, err := cdfFigure("cdf-"+k.name, k.title, runs, k.get)
		if err != nil {
			return nil, err
		}
		if fig != nil {
			blocks = append(blocks, fig)
		}
	}
	return blocks, nil
}

// LoadCurveSection draws throughput and P99 TTFT against the offered load
// of each sweep's shown configs, with the knee and the SLO capacity marked.
type LoadCurveSection struct{}

func (LoadCurveSection) Title() string { return "Throughput vs load" }

func (LoadCurveSection) Blocks(in *Inputs) ([]Block, error) {
	var blocks []Block
	lowerBound := false // a drawn capacity is marked "≥"
	for i, sw := range in.Sweeps {
		var rows []*sweep.Row
		for _, r := range shownRows(sw) {
			if len(r.Curve) > 1 && len(rows) < maxCurves {
				rows = append(rows, r)
				lowerBound = lowerBound || r.CapacityLowerBound()
			}
		}
		if len(rows) == 0 {
			continue
		}
		figs, err := loadFigures(fmt.Sprintf("load-%d", i), sw.Name, rows)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, figs...)
	}
	if len(blocks) > 0 {
		blocks = append([]Block{&Text{loadCurveIntro(lowerBound)}}, blocks...)
	}
	return blocks, nil
}

// loadCurveIntro explains the load figures' marks; "≥" only where one is
// drawn, as an explanation of a mark no figure has misleads.
func loadCurveIntro(lowerBound bool) string {
	intro := "The knee is the first load beyond which extra load adds little throughput " +
		"while P99 latency grows sharply; the SLO capacity is the highest load at which the SLO still holds"
	if lowerBound {
		return intro + " (≥: it held up to the search's limit, so the capacity is at least there)."
	}
	return intro + "."
}

// ParetoSection draws cost against P99 TTFT and against throughput per
// device, the Pareto front highlighted: sweep rows (their front flags) or,
// without a sweep, the runs (front computed here).
type ParetoSection struct{}

func (ParetoSection) Title() string { return "Pareto front" }

func (ParetoSection) Blocks(in *Inputs) ([]Block, error) {
	var blocks []Block
	for i, sw := range in.Sweeps {
		var pts []paretoPoint
		var cost, lat, negThr []float64
		// A sweep's configs are placed by goodput (the output of requests
		// within the SLO), as it ranks them; a row without it by all output.
		thrLabel := "goodput output tokens/s per device"
		for j := range sw.Rows {
			r := &sw.Rows[j]
			if !known(r.USDPerMOutEst) {
				continue
			}
			perDev := r.GoodputOutTokPerSecPerDevice
			if !known(perDev) {
				perDev = r.OutTokPerSec / float64(r.Devices())
				thrLabel = "goodput (else all) output tokens/s per device"
			}
			pts = append(pts, paretoPoint{label: configName(r), cost: r.USDPerMOutEst, p99: r.TTFTP99, perDev: perDev,
				capped: r.CapacityLowerBound()})
			// the fronts are drawn among the configs that meet the SLO (ranked)
			c := math.NaN()
			if r.Rank > 0 {
				c = r.USDPerMOutEst
			}
			cost, lat, negThr = append(cost, c), append(lat, r.TTFTP99), append(negThr, -perDev)
		}
		fl, ft := sweep.ParetoFront(cost, lat), sweep.ParetoFront(cost, negThr)
		for k := range pts {
			pts[k].frontLat, pts[k].frontThr = fl[k], ft[k]
		}
		figs, err := paretoFigures(fmt.Sprintf("pareto-%d", i), "sweep "+sw.Name, thrLabel, pts)
		if err != nil {
			return nil, err
		}
		if len(figs) > 0 {
			blocks = append(blocks, &Text{fmt.Sprintf("Sweep %s: points are labelled as the tables name configs, by rank (#N), else by index (index=N; one the tables leave out is shown by compare PATH#index=N); "+
				"the fronts are drawn among the configs that meet the SLO, on the plotted axes (the table's ★ is the sweep's "+
				"own flag: cost vs P99 E2E or vs goodput per device).", sw.Name)})
		}
		blocks = append(blocks, figs...)
	}
	if len(in.Sweeps) == 0 {
		var pts []paretoPoint
		for _, r := range in.Runs {
			m := r.Metrics
			if !known(m.USDPerMOutEst) {
				continue
			}
			perDev := math.NaN()
			if m.Devices > 0 {
				perDev = m.OutTokPerSec / float64(m.Devices)
			}
			pts = append(pts, paretoPoint{label: r.Name, cost: m.USDPerMOutEst, p99: m.TTFTP99, perDev: perDev})
		}
		if len(pts) < 2 {
			return nil, nil
		}
		markFront(pts)
		figs, err := paretoFigures("pareto-runs", "runs", "output tokens/s per device", pts)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, figs...)
	}
	return blocks, nil
}

// paretoPoint is one config in the cost plots; a capped one
// (Row.CapacityLowerBound) is placed at the search's limit, not at its
// capacity.
type paretoPoint struct {
	label              string
	cost, p99, perDev  float64
	frontLat, frontThr bool
	capped             bool
}

// markFront flags the points no other point beats on both cost and P99
// TTFT (lower is better), and on both cost and throughput per device.
func markFront(pts []paretoPoint) {
	for i := range pts {
		a := &pts[i]
		a.frontLat, a.frontThr = known(a.p99), known(a.perDev)
		for j := range pts {
			b := &pts[j]
			if i == j {
				continue
			}
			if known(b.p99) && b.cost <= a.cost && b.p99 <= a.p99 && (b.cost < a.cost || b.p99 < a.p99) {
				a.frontLat = false
			}
			if known(b.perDev) && b.cost <= a.cost && b.perDev >= a.perDev && (b.cost < a.cost || b.perDev > a.perDev) {
				a.frontThr = false
			}
		}
	}
}

// KVSection draws KV-cache occupancy over time of each simulated run.
type KVSection struct{}

func (KVSection) Title() string { return "KV cache utilization" }

func (KVSection) Blocks(in *Inputs) ([]Block, error) {
	var runs []*Run
	var pos []int // each run's row in the comparison table, from 1
	for i, r := range in.Runs {
		if r.Result != nil && len(kvLines(r)) > 0 {
			runs, pos = append(runs, r), append(pos, i+1)
		}
	}
	if len(runs) == 0 {
		return nil, nil
	}
	fig, err := kvFigure(runs, pos)
	if err != nil {
		return nil, err
	}
	return []Block{fig, &Text{"Each point is the most KV blocks referenced at once within a time bucket " +
		"(buckets widen as a run grows, so a long run keeps about 1,000 points)."}}, nil
}
