package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
)

// CostSection breaks the estimated cost down by the five factors of the
// cost model: hardware amortization and energy (dollars), memory occupancy
// (KV blocks and the concurrency they allow), batching efficiency (tokens
// per second per device) and the tail-latency penalty (what keeping P99
// within the SLO costs over running at saturation; sweeps only, since it
// needs the load curve).
type CostSection struct{}

func (CostSection) Title() string { return "Cost breakdown" }

func (CostSection) Blocks(in *Inputs) ([]Block, error) {
	var blocks []Block
	var priced []*Run
	var pricedPos []int     // each priced run's row in the table, from 1
	var unmeasured []string // runs whose estimates leave energy out
	t := &Table{
		Caption: "Simulated runs. Estimated cost = device-seconds × $/h (hardware amortization) + energy × $/kWh × PUE; " +
			"billed = the API's per-token prices. Max concurrency ≈ KV tokens ÷ mean tokens per completed request.",
		Header: []string{"run", "hardware $", "energy $", "total $ (est.)", "$/1M out (est.)", "$/1M total (est.)",
			"$/1M out (billed)", "KV blocks", "KV used mean / max", "≈ max concurrency", "preemptions",
			"out tok/s per device", "device busy", "tail penalty"},
		Numeric: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true},
	}
	for _, r := range in.Runs {
		if r.Result == nil {
			continue
		}
		s, c := r.Result.Summary, r.Result.Cost
		energy := numfmt.USD(c.EnergyUSD)
		if s.EnergyJoules < 0 {
			energy = "—"
		}
		conc := "—"
		if r.BlockSize > 0 && s.Completed > 0 && s.KV.TotalBlocks > 0 {
			perReq := float64(s.InputTokens+s.OutputTokens) / float64(s.Completed)
			conc = fmt.Sprintf("%.0f", math.Floor(float64(s.KV.TotalBlocks*r.BlockSize)/perReq))
		}
		m := r.Metrics
		total, perMOut, perMTot := numfmt.USD(c.TotalUSD), numfmt.USD(m.USDPerMOutEst), perMTotal(c.PerMTotalUSD, s.InputTokens+s.OutputTokens)
		if energyUnmeasured(r) {
			total, perMOut, perMTot = markHardwareOnly(total), markHardwareOnly(perMOut), markHardwareOnly(perMTot)
			unmeasured = append(unmeasured, r.Name)
		}
		perDev, busy := math.NaN(), math.NaN()
		if d := devicesOf(r); d > 0 {
			perDev = m.OutTokPerSec / float64(d)
		}
		if s.Makespan > 0 {
			busy = s.Utilization
		}
		t.Rows = append(t.Rows, []string{r.Name, numfmt.USD(c.HardwareUSD), energy, total,
			perMOut, perMTot, numfmt.USD(m.USDPerMOutBilled),
			fmt.Sprint(s.KV.TotalBlocks), kvMeanPct(s) + " / " + numfmt.Pct(s.KV.MaxUtil), conc,
			fmt.Sprint(s.Preemptions), fmtF(perDev, 0), numfmt.Pct(busy), "— (needs a sweep)"})
		if known(m.USDPerMOutEst) {
			priced, pricedPos = append(priced, r), append(pricedPos, len(t.Rows))
		}
	}
	if len(t.Rows) > 0 {
		blocks = append(blocks, t)
	}
	if len(unmeasured) > 0 {
		blocks = append(blocks, &Text{fmt.Sprintf("%s Energy not measured for %s: the marked estimates are hardware amortization alone.",
			strings.TrimSpace(hardwareOnlyMark), strings.Join(unmeasured, ", "))})
	}
	if len(priced) > 0 {
		fig, err := runCostFigure(priced, pricedPos)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, fig)
	}
	for i, sw := range in.Sweeps {
		rows := shownRows(sw)
		if len(rows) == 0 {
			continue
		}
		st := &Table{
			Caption: fmt.Sprintf("Sweep %s. Tail penalty = $/1M at %s ÷ $/1M at saturation − 1: "+
				"the capacity held back to keep P99 within the SLO.", sw.Name, evaluatedAt(rows)),
			Header: []string{"config", "devices", "$/1M out at SLO", "$/1M out at saturation", "tail penalty",
				"tail penalty $/1M", "$/1M out (billed)", "KV blocks × block size", "goodput tok/s per device", "sat. tok/s"},
			Numeric: []bool{false, true, true, true, true, true, true, true, true, true},
		}
		var bars []*sweep.Row
		var noBar []string                     // the table's configs the figure has no bar for, and why
		upperBound, lowerBound := false, false // a figure is marked "≤", "≥"
		for _, r := range rows {
			devices := r.Devices()
			pen := r.USDPerMOutEst - r.SatUSDPerMOut
			atSLO, penPct, penUSD := numfmt.USD(r.USDPerMOutEst), numfmt.Pct(r.TailPenalty), numfmt.USD(pen)
			goodput := fmtF(r.GoodputOutTokPerSecPerDevice, 0)
			if r.CapacityLowerBound() {
				atSLO, penPct, penUSD = numfmt.AtMost(atSLO), numfmt.AtMost(penPct), numfmt.AtMost(penUSD)
				upperBound = upperBound || atSLO != "—" || penPct != "—" || penUSD != "—"
				goodput = numfmt.AtLeast(goodput)
				lowerBound = lowerBound || goodput != "—"
			}
			st.Rows = append(st.Rows, []string{rowMark(r) + " " + r.Label, fmt.Sprint(devices), atSLO,
				numfmt.USD(r.SatUSDPerMOut), penPct, penUSD, numfmt.USD(r.USDPerMOutBilled),
				fmt.Sprintf("%d × %d", r.KVBlocks, r.BlockSize), goodput,
				fmtF(r.SatOutTokPerSec, 0)})
			st.Marked = append(st.Marked, r.OnPareto || r.ParetoLatency || r.ParetoThroughput)
			switch {
			case !known(r.USDPerMOutEst):
				noBar = append(noBar, configName(r)+" (no cost at the SLO)")
			case !known(r.SatUSDPerMOut):
				noBar = append(noBar, configName(r)+" (no cost at saturation)")
			case len(bars) >= maxCostBars:
				noBar = append(noBar, fmt.Sprintf("%s (past the first %d bars)", configName(r), maxCostBars))
			default:
				bars = append(bars, r)
			}
		}
		if upperBound {
			st.Caption += " ≤: the SLO held up to the search's limit, so the capacity is higher and the cost there lower."
		}
		if lowerBound {
			st.Caption += " ≥: the SLO held up to the search's limit, so the goodput at the capacity is higher."
		}
		blocks = append(blocks, st)
		if len(bars) > 0 {
			fig, err := sweepCostFigure(fmt.Sprintf("cost-sweep-%d", i), sw.Name, bars, noBar)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, fig)
		}
	}
	return blocks, nil
}

// maxCostBars is the most bars a sweep's cost figure draws: more would
// be too narrow to name.
const maxCostBars = 12

// hardwareOnlyMark follows an estimate that leaves energy out, as the
// note under the table says: the caption prices hardware plus energy.
const hardwareOnlyMark = " †"

// energyUnmeasured says a run's energy was not measured (no power
// model): its estimated cost is hardware amortization alone.
func energyUnmeasured(r *Run) bool { return r.Result.Summary.EnergyJoules < 0 }

// markHardwareOnly marks an estimate as hardware only; "—" is no
// estimate to mark.
func markHardwareOnly(cell string) string {
	if cell == "—" {
		return cell
	}
	return cell + hardwareOnlyMark
}

func perMTotal(v float64, tokens int64) string {
	if tokens <= 0 {
		return "—"
	}
	return numfmt.USD(v)
}

// kvMeanPct is a run's time-mean KV use as a share of its blocks: "—"
// for a run over no time, whose mean summary.json writes as null (read
// back as 0), as its busy fraction.
func kvMeanPct(s *sim.Summary) string {
	if !(s.Makespan > 0) {
		return "—"
	}
	return numfmt.Pct(s.KV.MeanUtil)
}

// devicesOf is a run's device count, from the plan's trace metadata.
func devicesOf(r *Run) int { return r.Metrics.Devices }
