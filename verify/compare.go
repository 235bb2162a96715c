package verify

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/textcut"
	"github.com/servesim/servesim/traces"
)

// Metrics are one run's figures, predicted or measured. Latencies are
// seconds; nil means not measured (never a guess).
type Metrics struct {
	Requests     int64    `json:"requests"`  // non-warm-up requests
	Completed    int64    `json:"completed"` // of Requests
	OutputTokens int64    `json:"output_tokens"`
	ReqPerSec    *float64 `json:"req_per_s"`
	OutTokPerSec *float64 `json:"out_tok_per_s"`
	TTFTMean     *float64 `json:"ttft_mean_s"`
	TTFTP50      *float64 `json:"ttft_p50_s"`
	TTFTP99      *float64 `json:"ttft_p99_s"`
	TPOTMean     *float64 `json:"tpot_mean_s"`
	TPOTP99      *float64 `json:"tpot_p99_s"`
	E2EP99       *float64 `json:"e2e_p99_s"`
	// DeviceSeconds is devices × the measurement window (first arrival to
	// last token).
	DeviceSeconds *float64 `json:"device_seconds"`
	// USDPerMOut is the cost per million output tokens on the candidate's
	// CostBasis: the sweep's estimate (device-seconds × $/h + energy ×
	// $/kWh × PUE) when energy was measured and predicted, else hardware
	// alone, so that predicted and measured are priced alike.
	USDPerMOut *float64 `json:"usd_per_m_out"`
	// USDPerMOutHardware is device-seconds × $/h per million output
	// tokens: the basis every candidate has.
	USDPerMOutHardware *float64 `json:"usd_per_m_out_hardware"`
	// JPerOutTok is energy per output token: the simulator's power model,
	// or NVML's energy over the replay (nil when not sampled).
	JPerOutTok *float64 `json:"j_per_out_tok"`
}

// Tolerances are the largest |relative error| each metric may have.
type Tolerances struct {
	Throughput float64 `json:"throughput"` // output tokens/s
	TTFT       float64 `json:"ttft"`       // mean and P50 TTFT
	TPOT       float64 `json:"tpot"`       // mean TPOT
	P99        float64 `json:"p99"`        // P99 TTFT, TPOT, E2E
	Cost       float64 `json:"cost"`       // device-seconds and $/1M out
}

// DefaultTolerances: 10% on throughput, mean TTFT and mean TPOT, 20% on
// the P99s, 10% on cost.
func DefaultTolerances() Tolerances {
	return Tolerances{Throughput: 0.10, TTFT: 0.10, TPOT: 0.10, P99: 0.20, Cost: 0.10}
}

// Validate reports each tolerance that is not a finite fraction ≥ 0 as a
// *traces.FieldError (joined): NaN would pass every metric and could not be
// written to verify.json.
func (t Tolerances) Validate() error {
	var errs []error
	for _, f := range []struct {
		field string
		v     float64
	}{{"Throughput", t.Throughput}, {"TTFT", t.TTFT}, {"TPOT", t.TPOT}, {"P99", t.P99}, {"Cost", t.Cost}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, &traces.FieldError{Struct: "verify: Tolerances", Field: f.field,
				Msg: fmt.Sprintf("%v: want a finite fraction ≥ 0, e.g. 0.1", f.v)})
		}
	}
	return errors.Join(errs...)
}

// Metric names, in table order.
const (
	MetricThroughput    = "throughput_out_tok_s"
	MetricTTFTMean      = "ttft_mean_s"
	MetricTTFTP50       = "ttft_p50_s"
	MetricTTFTP99       = "ttft_p99_s"
	MetricTPOTMean      = "tpot_mean_s"
	MetricTPOTP99       = "tpot_p99_s"
	MetricE2EP99        = "e2e_p99_s"
	MetricDeviceSeconds = "device_seconds"
	MetricCost          = "usd_per_m_out"
	MetricEnergy        = "j_per_out_tok"
)

// MetricNames lists the compared metrics in table order.
var MetricNames = []string{MetricThroughput, MetricTTFTMean, MetricTTFTP50, MetricTTFTP99, MetricTPOTMean,
	MetricTPOTP99, MetricE2EP99, MetricDeviceSeconds, MetricCost, MetricEnergy}

func (m *Metrics) get(name string) *float64 {
	if f := m.field(name); f != nil {
		return *f
	}
	return nil
}

// field is the address of metric name's field; nil for an unknown name.
func (m *Metrics) field(name string) **float64 {
	switch name {
	case MetricThroughput:
		return &m.OutTokPerSec
	case MetricTTFTMean:
		return &m.TTFTMean
	case MetricTTFTP50:
		return &m.TTFTP50
	case MetricTTFTP99:
		return &m.TTFTP99
	case MetricTPOTMean:
		return &m.TPOTMean
	case MetricTPOTP99:
		return &m.TPOTP99
	case MetricE2EP99:
		return &m.E2EP99
	case MetricDeviceSeconds:
		return &m.DeviceSeconds
	case MetricCost:
		return &m.USDPerMOut
	case MetricEnergy:
		return &m.JPerOutTok
	}
	return nil
}

// meanMetrics is the mean of the runs' metrics, with the lowest and
// highest value of each. A figure per output token (energy, cost) is the
// runs' total over their total output tokens, and a rate (throughput,
// requests/s) their total over their total measured window, as the
// simulator's are over its run: a plain mean of the runs' ratios would
// weigh a short run as much as a long one (and the mean throughput would
// not be the mean output tokens over the mean window). A metric some run
// did not measure is left out (nil). Of the counts, the mean keeps one
// run's requests (every run replays the same slice), the fewest
// completed, and the mean output tokens.
func meanMetrics(reps []Repeat) (mean, lo, hi Metrics) {
	mean.Requests, mean.Completed = reps[0].Measured.Requests, reps[0].Measured.Completed
	var tokens int64
	for _, r := range reps {
		mean.Completed = min(mean.Completed, r.Measured.Completed)
		tokens += r.Measured.OutputTokens
	}
	mean.OutputTokens = int64(math.Round(float64(tokens) / float64(len(reps))))
	fields := func(m *Metrics) []**float64 {
		f := []**float64{&m.ReqPerSec, &m.USDPerMOutHardware}
		for _, name := range MetricNames {
			f = append(f, m.field(name))
		}
		return f
	}
	fm, fl, fh := fields(&mean), fields(&lo), fields(&hi)
	fr := make([][]**float64, len(reps))
	for k := range reps {
		fr[k] = fields(&reps[k].Measured)
	}
	for i := range fm {
		perToken, rate := isPerOutputToken(&mean, fm[i]), isRate(&mean, fm[i])
		sum, weights, l, h, all := 0.0, 0.0, math.Inf(1), math.Inf(-1), true
		for k := range reps {
			m := &reps[k].Measured
			v := *fr[k][i]
			if v == nil || rate && m.DeviceSeconds == nil {
				all = false
				break
			}
			w := 1.0
			switch {
			case perToken:
				w = float64(m.OutputTokens)
			case rate:
				w = *m.DeviceSeconds // the devices × the window: every run has the same devices
			}
			sum, weights, l, h = sum+w**v, weights+w, min(l, *v), max(h, *v)
		}
		if all {
			*fm[i], *fl[i], *fh[i] = sec(sum/weights), sec(l), sec(h)
		}
	}
	return mean, lo, hi
}

// isPerOutputToken reports whether f is the address of one of m's
// figures per output token.
func isPerOutputToken(m *Metrics, f **float64) bool {
	return f == &m.JPerOutTok || f == &m.USDPerMOut || f == &m.USDPerMOutHardware
}

// isRate reports whether f is the address of one of m's figures per
// second of the measured window.
func isRate(m *Metrics, f **float64) bool { return f == &m.OutTokPerSec || f == &m.ReqPerSec }

// Tolerance is the tolerance of metric name; 0 for a metric that is
// reported but not gated (energy: the power model is the catalog's, not
// calibrated).
func (t Tolerances) Tolerance(name string) float64 {
	switch name {
	case MetricThroughput:
		return t.Throughput
	case MetricTTFTMean, MetricTTFTP50:
		return t.TTFT
	case MetricTPOTMean:
		return t.TPOT
	case MetricTTFTP99, MetricTPOTP99, MetricE2EP99:
		return t.P99
	case MetricDeviceSeconds, MetricCost:
		return t.Cost
	}
	return 0
}

// MetricRow is one metric of one candidate: predicted against measured.
type MetricRow struct {
	Metric    string   `json:"metric"`
	Predicted *float64 `json:"predicted"`
	Measured  *float64 `json:"measured"`
	// RelError is (predicted − measured) / measured; nil when either is
	// missing, and when measured is 0 but predicted is not, or the error
	// is past what a float holds (an infinite error, which fails any
	// tolerance). Both 0 is an error of 0.
	RelError  *float64 `json:"rel_error"`
	Tolerance float64  `json:"tolerance"`
	Pass      *bool    `json:"pass"` // nil: nothing to compare, or not gated
	// MeasuredMin and MeasuredMax are the range of the measured runs when
	// a candidate was measured more than once (Measured is their mean;
	// per output token, their total over their total tokens).
	MeasuredMin *float64 `json:"measured_min,omitempty"`
	MeasuredMax *float64 `json:"measured_max,omitempty"`
}

// CompareMetrics lines predicted up against measured, metric by metric.
func CompareMetrics(pred, meas *Metrics, tol Tolerances) []MetricRow {
	var rows []MetricRow
	for _, name := range MetricNames {
		r := MetricRow{Metric: name, Predicted: pred.get(name), Measured: meas.get(name), Tolerance: tol.Tolerance(name)}
		if r.Predicted != nil && r.Measured != nil {
			e, finite := relError(*r.Predicted, *r.Measured)
			if finite {
				r.RelError = &e
			}
			if r.Tolerance > 0 {
				pass := finite && within(e, r.Tolerance)
				r.Pass = &pass
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// relError is (predicted − measured) / measured. A measured 0 still has
// a verdict: predicted 0 is exact, anything else is infinitely off, which
// is reported as not finite (JSON cannot hold ±Inf); so is an error past
// what a float holds (1e308 predicted against 1e-10 measured).
func relError(predicted, measured float64) (e float64, finite bool) {
	if measured == 0 {
		return 0, predicted == 0
	}
	e = (predicted - measured) / measured
	return e, !math.IsInf(e, 0) && !math.IsNaN(e)
}

// within reports whether |e| is at most tol, allowing for the rounding
// of the division: 1.1 against 1.0 is an error of 0.10000000000000009,
// which a tolerance of 0.1 must pass.
func within(e, tol float64) bool { return math.Abs(e) <= tol*(1+1e-9) }

// KendallTau is Kendall's rank correlation τ-b of x and y (equal length):
// 1 when they order every pair alike, −1 when every pair is reversed.
// Ties count as neither concordant nor discordant and shrink the
// denominator (τ-b). It is NaN when x or y has no two values that differ
// (fewer than two values included).
func KendallTau(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("verify: KendallTau: lengths differ")
	}
	var conc, disc, tiesX, tiesY, pairs float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			pairs++
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case dx == 0 && dy == 0:
				tiesX++
				tiesY++
			case dx == 0:
				tiesX++
			case dy == 0:
				tiesY++
			case dx == dy:
				conc++
			default:
				disc++
			}
		}
	}
	den := math.Sqrt((pairs - tiesX) * (pairs - tiesY))
	if den == 0 {
		return math.NaN()
	}
	return (conc - disc) / den
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// Cost bases of usd_per_m_out.
const (
	// CostHardwareEnergy is the sweep's estimate: device-seconds × $/h +
	// energy × $/kWh × PUE.
	CostHardwareEnergy = "hardware+energy"
	// CostHardware is device-seconds × $/h: energy was not measured (no
	// --gpu) or not predicted.
	CostHardware = "hardware"
)

// settleCostBasis prices the candidate's predicted and measured cost
// alike: the sweep's estimate when energy is known on both sides, else
// hardware alone on both sides, in the runs' range (lo, hi) and each run
// too.
func (cr *CandidateResult) settleCostBasis(lo, hi *Metrics) {
	cr.CostBasis = CostHardwareEnergy
	if cr.Predicted.JPerOutTok != nil && cr.Measured.JPerOutTok != nil {
		return
	}
	cr.CostBasis = CostHardware
	ms := []*Metrics{&cr.Predicted, &cr.Measured, lo, hi}
	for k := range cr.Repeats {
		ms = append(ms, &cr.Repeats[k].Measured)
	}
	for _, m := range ms {
		if m != nil {
			m.USDPerMOut = m.USDPerMOutHardware
		}
	}
}

// rankingCost is c's cost on basis: its own when that is c's basis,
// else its hardware cost (a result written before the hardware cost was
// kept has only its own, which was hardware).
func rankingCost(m *Metrics, cBasis, basis string) *float64 {
	if basis == CostHardwareEnergy || cBasis != CostHardwareEnergy && m.USDPerMOutHardware == nil {
		return m.USDPerMOut
	}
	return m.USDPerMOutHardware
}

// Ranking is how the candidates rank by measured cost and whether the
// simulator's ranking held.
type Ranking struct {
	// CostBasis is the basis of the costs ranked: CostHardwareEnergy, as
	// the sweep ranked them, when every ranked candidate has it, else
	// CostHardware.
	CostBasis string `json:"cost_basis"`
	// Entries are the measured candidates by measured $/1M out, cheapest
	// first.
	Entries []RankEntry `json:"by_measured_cost"`
	// TauSweep is Kendall's τ-b between the sweep's ranks and the measured
	// cost; TauPredicted between the re-simulated and the measured cost.
	// nil with fewer than two measured candidates.
	TauSweep     *float64 `json:"kendall_tau_sweep_rank"`
	TauPredicted *float64 `json:"kendall_tau_predicted_cost"`
	// Held: no two candidates are measured in the opposite order of their
	// sweep ranks (τ = 1, or below 1 only for ties in measured cost).
	Held bool `json:"held"`
	// BestHeld: the sweep's best measured candidate is measured cheapest,
	// or within BestWithin of the cheapest; BestGap is its measured cost
	// over the cheapest's, minus 1 (nil when the cheapest is free and the
	// best is not, or the ratio is past what a float holds: no ratio, and
	// not held). BestRank is its sweep rank:
	// above 1 when the sweep's first candidate was not measured.
	BestHeld   *bool    `json:"best_held"`
	BestGap    *float64 `json:"best_gap"`
	BestWithin float64  `json:"best_within"`
	BestRank   int64    `json:"best_sweep_rank"`
	// LeftOut are the candidates out of Entries, and so of τ and the
	// best's verdict: not measured, or with no measured
	// cost on CostBasis. In the candidates' order.
	LeftOut []RankLeftOut `json:"left_out"`
}

// RankLeftOut is a candidate the ranking leaves out, and why: its Status
// and Detail, or StatusOK and why it has no cost.
type RankLeftOut struct {
	Label     string `json:"label"`
	SweepRank int64  `json:"sweep_rank"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
}

// noCost is why a measured candidate without a cost is left out.
const noCost = "no measured cost"

// why is the reason a ranking line gives: the status, or for a measured
// candidate its reason.
func (l RankLeftOut) why() string {
	if l.Status == StatusOK {
		return l.Reason
	}
	return l.Status
}

// LeftOutString says how many candidates τ covers and names those left
// out ("τ over 2 of 3 candidates; left out: #3 c3 (engine_start_failed)");
// with fewer than two ranked there is no τ to cover them ("ranked 1 of 3
// candidates; no τ with fewer than 2; left out: …"), and with none no
// ranking ("no candidate ranked (none of 3 has a measured cost); left
// out: …"); "" when none was left out.
func (rk Ranking) LeftOutString() string {
	if len(rk.LeftOut) == 0 {
		return ""
	}
	names := make([]string, len(rk.LeftOut))
	for i, l := range rk.LeftOut {
		names[i] = fmt.Sprintf("#%d %s (%s)", l.SweepRank, l.Label, l.why())
	}
	ranked, all := len(rk.Entries), len(rk.Entries)+len(rk.LeftOut)
	cover := fmt.Sprintf("τ over %d of %d candidates", ranked, all)
	switch {
	case ranked == 0:
		cover = fmt.Sprintf("no candidate ranked (none of %d has a measured cost)", all)
	case ranked < 2:
		cover = fmt.Sprintf("ranked %d of %d candidates; no τ with fewer than 2", ranked, all)
	}
	return cover + "; left out: " + strings.Join(names, ", ")
}

// Basis is CostBasis; a result written before the basis was recorded
// ranked on hardware.
func (rk Ranking) Basis() string { return cmp.Or(rk.CostBasis, CostHardware) }

// MetricLabel is metric as tables show it: the cost with its basis.
func (c *CandidateResult) MetricLabel(metric string) string {
	if metric != MetricCost {
		return metric
	}
	return metric + " (" + cmp.Or(c.CostBasis, CostHardware) + ")"
}

// HeldString says whether the ranking held: "true", "false", or "n/a"
// when there was no order to compare (fewer than two measured candidates,
// or every measured cost the same).
func (rk Ranking) HeldString() string {
	if rk.TauSweep == nil {
		return "n/a"
	}
	return fmt.Sprint(rk.Held)
}

// RankEntry is one candidate in the measured ranking.
type RankEntry struct {
	Label     string `json:"label"`
	SweepRank int64  `json:"sweep_rank"`
	// MeasuredRank is by competition ranking: candidates measured at the
	// same cost share the rank of the first (1, 1, 3).
	MeasuredRank  int      `json:"measured_rank"`
	PredictedCost *float64 `json:"predicted_usd_per_m_out"`
	MeasuredCost  float64  `json:"measured_usd_per_m_out"`
}

// BestWithin is how much dearer than the cheapest measured candidate the
// simulator's best may be measured for its ranking to count as held.
const BestWithin = 0.05

// Rank ranks the candidates with a measured cost.
func Rank(cands []CandidateResult) Ranking {
	rk := Ranking{BestWithin: BestWithin, CostBasis: CostHardwareEnergy}
	for _, c := range cands {
		if c.Status == StatusOK && c.Measured.USDPerMOut != nil && c.CostBasis != CostHardwareEnergy {
			rk.CostBasis = CostHardware // one basis for all
		}
	}
	for _, c := range cands {
		meas := rankingCost(&c.Measured, c.CostBasis, rk.CostBasis)
		if c.Status != StatusOK {
			rk.LeftOut = append(rk.LeftOut, RankLeftOut{Label: c.Label, SweepRank: c.Rank, Status: c.Status, Reason: c.Detail})
			continue
		}
		if c.Measured.USDPerMOut == nil || meas == nil {
			rk.LeftOut = append(rk.LeftOut, RankLeftOut{Label: c.Label, SweepRank: c.Rank, Status: c.Status, Reason: noCost})
			continue
		}
		rk.Entries = append(rk.Entries, RankEntry{Label: c.Label, SweepRank: c.Rank,
			PredictedCost: rankingCost(&c.Predicted, c.CostBasis, rk.CostBasis), MeasuredCost: *meas})
	}
	if len(rk.Entries) == 0 {
		return rk
	}
	sort.SliceStable(rk.Entries, func(i, j int) bool { return rk.Entries[i].MeasuredCost < rk.Entries[j].MeasuredCost })
	rankWithTies(rk.Entries)
	if len(rk.Entries) >= 2 {
		var sweepRank, meas, pred, measP []float64
		for _, e := range rk.Entries {
			sweepRank, meas = append(sweepRank, float64(e.SweepRank)), append(meas, e.MeasuredCost)
			if e.PredictedCost != nil {
				pred, measP = append(pred, *e.PredictedCost), append(measP, e.MeasuredCost)
			}
		}
		if t := KendallTau(sweepRank, meas); !math.IsNaN(t) {
			rk.TauSweep = &t
			// Held unless two candidates are measured in the opposite order
			// of their sweep ranks: a tie in measured cost contradicts no
			// ranking, though it keeps τ-b below 1.
			bySweep := slices.Clone(rk.Entries)
			slices.SortFunc(bySweep, func(a, b RankEntry) int { return cmp.Compare(a.SweepRank, b.SweepRank) })
			rk.Held = slices.IsSortedFunc(bySweep, func(a, b RankEntry) int { return cmp.Compare(a.MeasuredCost, b.MeasuredCost) })
		}
		if len(pred) >= 2 {
			if t := KendallTau(pred, measP); !math.IsNaN(t) {
				rk.TauPredicted = &t
			}
		}
	}
	best := slices.MinFunc(rk.Entries, func(a, b RankEntry) int { return int(a.SweepRank - b.SweepRank) })
	rk.BestRank = best.SweepRank
	// A free candidate (a plan priced at $0/h) leaves no ratio to take
	// but a tie: a best that cost something against a free cheapest has
	// no gap, and is not within BestWithin of it; nor has one whose ratio
	// to a tiny cheapest is past what a float (and JSON) holds.
	held := false
	if gap, ok := bestGap(best.MeasuredCost, rk.Entries[0].MeasuredCost); ok {
		held = within(gap, BestWithin) // 1.05 against 1.00 is within 5%
		rk.BestGap = &gap
	}
	rk.BestHeld = &held
	return rk
}

// rankWithTies numbers entries, sorted by measured cost, by competition
// ranking (1, 1, 3): candidates measured at the same cost share a rank,
// as the measurement orders neither before the other.
func rankWithTies(entries []RankEntry) {
	for i := range entries {
		entries[i].MeasuredRank = i + 1
		if i > 0 && entries[i].MeasuredCost == entries[i-1].MeasuredCost {
			entries[i].MeasuredRank = entries[i-1].MeasuredRank
		}
	}
}

// tied says whether another entry shares entries[i]'s measured rank.
func tied(entries []RankEntry, i int) bool {
	r := entries[i].MeasuredRank
	return i > 0 && entries[i-1].MeasuredRank == r || i+1 < len(entries) && entries[i+1].MeasuredRank == r
}

// bestGap is best's cost over the cheapest's, minus 1; ok is false when
// there is no finite ratio (a free cheapest and a best that is not, or a
// ratio past what a float holds).
func bestGap(best, cheapest float64) (gap float64, ok bool) {
	switch {
	case best == cheapest:
		return 0, true
	case cheapest > 0:
		gap = best/cheapest - 1
		return gap, !math.IsInf(gap, 0)
	}
	return 0, false
}

// Errors are |relative errors| by metric name. One may be +Inf (a
// prediction against a measured 0): JSON holds no infinity, so it is
// written as the string "inf".
type Errors map[string]float64

// infError is how JSON holds an infinite error.
const infError = "inf"

func (e Errors) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	m := make(map[string]any, len(e))
	for k, v := range e {
		m[k] = v
		if math.IsInf(v, 1) {
			m[k] = infError
		}
	}
	return json.Marshal(m)
}

func (e *Errors) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		*e = nil
		return nil
	}
	// What is not a number is kept as NaN and refused by Result.check,
	// which knows the map it is in and names it.
	out := make(Errors, len(m))
	for k, raw := range m {
		var v float64
		if string(raw) == `"`+infError+`"` {
			v = math.Inf(1)
		} else if err := json.Unmarshal(raw, &v); err != nil || string(raw) == "null" { // null leaves v at 0
			v = math.NaN()
		}
		out[k] = v
	}
	*e = out
	return nil
}

// check: each key is one of MetricNames and each error a number ≥ 0 or
// +Inf; at names the map.
func (e Errors) check(at string) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(e)) {
		switch v := e[k]; {
		case !slices.Contains(MetricNames, k):
			errs = append(errs, fmt.Errorf("%s: %q: not a metric verify compares: want one of %s", at, k, strings.Join(MetricNames, ", ")))
		case math.IsNaN(v):
			errs = append(errs, fmt.Errorf("%s: %s: not a number: want a number ≥ 0 or %q (infinite)", at, k, infError))
		case !(v >= 0):
			errs = append(errs, fmt.Errorf("%s: %s = %v: want a number ≥ 0 or %q (infinite)", at, k, v, infError))
		}
	}
	return errs
}

// MedianAbsErrors is, per metric, the median |relative error| over the
// candidates that were measured. A prediction against a measured 0 is an
// infinite error and counts as the largest; a median that falls on one is
// +Inf.
func MedianAbsErrors(cands []CandidateResult) Errors {
	by := map[string][]float64{}
	for _, c := range cands {
		for _, r := range c.Rows {
			switch {
			case r.RelError != nil:
				by[r.Metric] = append(by[r.Metric], math.Abs(*r.RelError))
			case r.Predicted != nil && r.Measured != nil: // predicted against a measured 0
				by[r.Metric] = append(by[r.Metric], math.Inf(1))
			}
		}
	}
	out := Errors{}
	for k, v := range by {
		out[k] = median(v)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// WriteTable prints the comparison for people: per candidate its status
// and each metric predicted, measured, error and verdict; then why energy
// was not measured, the ranking, the median errors, output consistency
// and the refit.
func (res *Result) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cand\tmetric\tpredicted\tmeasured\terror\ttol\tverdict")
	for _, c := range res.Candidates {
		head := fmt.Sprintf("#%d %s", c.Rank, c.Label)
		if c.Status != StatusOK {
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t%s\n", head, "status", strings.ToUpper(c.Status)+": "+oneLine(c.Detail, 160))
			if kept := c.KeptRuns(); kept != "" {
				fmt.Fprintf(tw, "\truns\t\t\t\t\t%s\n", kept)
			}
			continue
		}
		if len(c.Rows) == 0 {
			// Else its only mention would be the ranking's left-out list.
			fmt.Fprintf(tw, "%s\tstatus\t\t\t\t\tOK: no measured rows: %s\n", head, c.NoRowsReason())
		}
		for i, r := range c.Rows {
			name := head
			if i > 0 {
				name = ""
			}
			verdict := "n/a"
			if r.Pass != nil {
				verdict = map[bool]string{true: "pass", false: "FAIL"}[*r.Pass]
			}
			meas := FormatValue(r.Metric, r.Measured)
			if r.MeasuredMin != nil && r.MeasuredMax != nil {
				meas += " (" + FormatValue(r.Metric, r.MeasuredMin) + "–" + FormatValue(r.Metric, r.MeasuredMax) + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, c.MetricLabel(r.Metric), FormatValue(r.Metric, r.Predicted), meas, r.ErrorString(), FormatTolerance(r.Tolerance), verdict)
		}
		if n := len(c.Repeats); n > 1 {
			how := "against the running engine"
			if res.EngineCmd != "" {
				how = "each on a fresh engine"
			}
			fmt.Fprintf(tw, "\truns\t\tmean (range) of %d, %s\t\t\t\n", n, how)
		}
		if c.Measured.Requests > 0 {
			fmt.Fprintf(tw, "\trequests\t%d/%d\t%d/%d\t\t\t%s\n", c.Predicted.Completed, c.Predicted.Requests, c.Measured.Completed, c.Measured.Requests, c.Failures())
		}
	}
	tw.Flush()
	if line := res.CappedLoadLine(); line != "" {
		fmt.Fprintln(w, line)
	}
	for _, line := range res.EnergyUnknownLines() {
		fmt.Fprintln(w, line)
	}
	printErrors(w, "median |error| over candidates:", res.MedianAbsError)
	rk := res.Ranking
	if len(rk.Entries) > 0 {
		fmt.Fprintf(w, "ranking by measured $/1M out (%s):", rk.Basis())
		for i, e := range rk.Entries {
			tie := "" // "=2." marks a rank shared by a tie in measured cost
			if tied(rk.Entries, i) {
				tie = "="
			}
			fmt.Fprintf(w, " %s%d. #%d %s (%s)", tie, e.MeasuredRank, e.SweepRank, e.Label, numfmt.USD(e.MeasuredCost))
		}
		if left := rk.LeftOutString(); left != "" {
			fmt.Fprint(w, "; ", left)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "simulator's ranking held: %s (Kendall τ sweep rank vs measured %s, re-simulated vs measured %s); best: %s\n",
			rk.HeldString(), fmtTau(rk.TauSweep), fmtTau(rk.TauPredicted), rk.BestString())
	} else if left := rk.LeftOutString(); left != "" {
		// No ranking to print, but who is out of it and why belongs on
		// screen, not in verify.json alone.
		fmt.Fprintf(w, "ranking by measured $/1M out: %s\n", left)
	}
	if cs := res.Consistency; cs.Compared > 0 {
		fmt.Fprintf(w, "output consistency (temperature 0, by request id): %d of %d requests differ across %s (%s)\n",
			cs.Differ, cs.Compared, res.ConsistencyAcross(), numfmt.Share(cs.Fraction, 1))
	}
	for _, u := range res.Consistency.Unread {
		fmt.Fprintf(w, "output consistency leaves out %s\n", u)
	}
	if r := res.Refit; r != nil {
		r.Print(w)
	}
	// The count of metrics outside tolerance is verify's exit message.
}

// CappedLoadLine names the candidates whose capacity is a lower bound
// (CandidateResult.CapacityLowerBound), replayed at the search's limit,
// and says their figures are at that load; "" when there are none. Only
// the compared candidates are named: one that failed has no figures in
// the table to qualify (its status line says why). The table's cells
// cannot say it, and verify.json alone does otherwise.
func (res *Result) CappedLoadLine() string {
	var names []string
	for _, c := range res.Candidates {
		if c.CapacityLowerBound && c.Status == StatusOK {
			names = append(names, fmt.Sprintf("#%d %s", c.Rank, c.Label))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "replayed at a capped load (the SLO held up to the sweep search's limit): " + strings.Join(names, ", ") +
		"; their figures, predicted and measured, are at that load: at the true capacity req/s and goodput are higher and $/1M out lower"
}

// EnergyUnknownLines say why energy per output token was not measured,
// one line per reason naming the compared candidates it holds for (the
// host's missing driver is one reason for every candidate): the table's
// cell is "—", and verify.json's energy_unknown is not in front of a
// reader of the table (verify's or the report's).
func (res *Result) EnergyUnknownLines() []string {
	var reasons []string
	who := map[string][]string{}
	for _, c := range res.Candidates {
		if c.Status != StatusOK || c.EnergyUnknown == "" {
			continue
		}
		if who[c.EnergyUnknown] == nil {
			reasons = append(reasons, c.EnergyUnknown)
		}
		who[c.EnergyUnknown] = append(who[c.EnergyUnknown], fmt.Sprintf("#%d %s", c.Rank, c.Label))
	}
	lines := make([]string, len(reasons))
	for i, why := range reasons {
		lines[i] = fmt.Sprintf("%s not measured for %s: %s", MetricEnergy, strings.Join(who[why], ", "), oneLine(why, 160))
	}
	return lines
}

// ConsistencyAcross names what the output consistency compared: the
// candidates, and each one's runs when it was measured more than once.
func (res *Result) ConsistencyAcross() string {
	for _, c := range res.Candidates {
		if c.Status == StatusOK && len(c.Repeats) > 1 {
			return "candidates and their runs"
		}
	}
	return "candidates"
}

// printErrors writes a line of title and each metric's error in errs,
// in MetricNames order; nothing when errs is empty.
func printErrors(w io.Writer, title string, errs map[string]float64) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintln(w, title, FormatErrors(errs))
}

// FormatErrors is each metric's error in errs, in MetricNames order, as
// "name 12.3%" (an infinite one "name ∞") separated by spaces ("" for
// none): one format for verify's table and the report's verification
// section.
func FormatErrors(errs map[string]float64) string {
	var parts []string
	for _, m := range MetricNames {
		if v, ok := errs[m]; ok {
			parts = append(parts, m+" "+fmtAbsError(v))
		}
	}
	return strings.Join(parts, " ")
}

// fmtAbsError is an |error| as a percentage, as the table's error
// column writes it less the sign; ∞ for a prediction against a measured 0.
func fmtAbsError(v float64) string {
	return strings.TrimPrefix(numfmt.Change(v, "∞"), "+")
}

// FormatValue is a metric's value as verify's table and the report's
// verification section write it, and as the rest of the report writes the
// same quantity: a latency as numfmt.Secs ("42.1ms"), a cost as numfmt.USD,
// throughput and device-seconds in whole units; "—" when nil.
func FormatValue(metric string, v *float64) string {
	if v == nil {
		return "—"
	}
	switch metric {
	case MetricTTFTMean, MetricTTFTP50, MetricTTFTP99, MetricTPOTMean, MetricTPOTP99, MetricE2EP99:
		return numfmt.Secs(*v)
	case MetricCost:
		return numfmt.USD(*v)
	case MetricThroughput, MetricDeviceSeconds:
		return numfmt.Fixed(*v, 0)
	}
	return fmt.Sprintf("%.4g", *v) // joules per output token, as record prints them
}

// ErrorString is the row's error as verify's table and the report write
// it: a signed percentage ("+12.3%", "+1e+16%" when huge), ∞ for a
// prediction against a measured 0, "—" when either side is unknown.
func (r MetricRow) ErrorString() string {
	if r.RelError == nil && r.Predicted != nil && r.Measured != nil {
		return "∞" // predicted against a measured 0: measured, and infinitely off
	}
	return fmtRel(r.RelError)
}

func fmtRel(v *float64) string {
	if v == nil {
		return "—"
	}
	return numfmt.Change(*v, "∞")
}

func fmtTau(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", *v)
}

// BestName names the candidate BestHeld judges: the sweep's best, or, when
// the sweep's first candidate was not measured, the rank that stood in.
func (rk Ranking) BestName() string {
	if rk.BestRank > 1 {
		return fmt.Sprintf("the sweep's best measured candidate (rank %d)", rk.BestRank)
	}
	return "the sweep's best"
}

// BestString says how the sweep's best was measured against the
// cheapest, with the within-BestWithin verdict; "n/a" with nothing ranked.
func (rk Ranking) BestString() string {
	if rk.BestHeld == nil {
		return "n/a"
	}
	best := rk.BestName()
	if rk.BestGap == nil { // no finite ratio to the cheapest
		cheapest := "the cheapest, past what a ratio holds"
		if len(rk.Entries) == 0 || rk.Entries[0].MeasuredCost == 0 {
			cheapest = "the free cheapest"
		}
		return fmt.Sprintf("%s was measured dearer than %s (within %.0f%%: %v)", best, cheapest, 100*rk.BestWithin, *rk.BestHeld)
	}
	if *rk.BestGap <= 0 {
		return best + " was measured cheapest" + rk.cheapestTie()
	}
	return fmt.Sprintf("%s was measured %s dearer than the cheapest (within %.0f%%: %v)", best, fmtAbsError(*rk.BestGap), 100*rk.BestWithin, *rk.BestHeld)
}

// cheapestTie is ", tied with N other(s)" when others share the cheapest
// measured cost, else "".
func (rk Ranking) cheapestTie() string {
	others := -1 // the best itself is one of them
	for _, e := range rk.Entries {
		if e.MeasuredRank == 1 {
			others++
		}
	}
	switch {
	case others < 1:
		return ""
	case others == 1:
		return ", tied with 1 other"
	}
	return fmt.Sprintf(", tied with %d others", others)
}

// KeptRuns says, for a candidate that failed in a later run, which runs
// succeeded before it: their figures are kept (verify.json's measured),
// not compared. "" for any other candidate.
func (c *CandidateResult) KeptRuns() string {
	ok := 0
	for _, r := range c.Repeats {
		if r.Status == StatusOK {
			ok++
		}
	}
	if c.Status == StatusOK || ok == 0 {
		return ""
	}
	if ok == 1 {
		return fmt.Sprintf("run 1 succeeded before run %d failed: its figures are kept in verify.json, not compared", len(c.Repeats))
	}
	return fmt.Sprintf("runs 1–%d succeeded before run %d failed: their mean is kept in verify.json, not compared", ok, len(c.Repeats))
}

// NoRowsReason says why a measured candidate has no metric rows, as its
// table line gives it.
func (c *CandidateResult) NoRowsReason() string {
	switch m := c.Measured; {
	case m.Requests == 0:
		return "no request was measured"
	case m.Completed == 0:
		return "every request failed"
	}
	return "no metric was compared"
}

// Failures is how the candidate's measured requests failed, as its
// table line gives it beside the completed count: "failed: KIND×N, …",
// or with repeats "failed over N runs: …" (the kinds are summed over the
// runs, the count is one run's); "" when none failed.
func (c *CandidateResult) Failures() string {
	kinds := kindCounts(c.FailedByKind)
	switch {
	case kinds == "":
		return ""
	case len(c.Repeats) > 1:
		return fmt.Sprintf("failed over %d runs: %s", len(c.Repeats), kinds)
	}
	return "failed: " + kinds
}

// failedKinds is "failed: KIND×N, …" of m; "" when none failed.
func failedKinds(m map[string]int) string {
	if kinds := kindCounts(m); kinds != "" {
		return "failed: " + kinds
	}
	return ""
}

// kindCounts is "KIND×N, …" of m, sorted.
func kindCounts(m map[string]int) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = textcut.Head(s, n) + "…"
	}
	return s
}

// FormatTolerance is a tolerance as verify's table and the report write
// it; "—" for 0, a metric that is not gated.
func FormatTolerance(t float64) string {
	if t <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.4g%%", 100*t) // as given: 2.5%, not a rounded 2%
}
