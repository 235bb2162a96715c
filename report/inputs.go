package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// Inputs is everything a report can show: runs (simulated plans, live or
// simulated per-request traces) and sweeps.
type Inputs struct {
	Sources []string // one line per input read, for the report header
	Runs    []*Run
	Sweeps  []*Sweep
	// SLO, when set before Add, counts each trace's goodput against it.
	SLO traces.SLO
}

// Run is one measured or simulated run of a trace under one config.
type Run struct {
	Name string
	Path string // where it came from
	// Source is the input file it was read from when that is not Path: a
	// simulated plan's summary.json (Path is then its trace beside it).
	Source     string
	Kind       string // "simulated", "live", or the trace's source
	Policy     string // scheduler policy; "" = unknown
	BatchLimit string // the policy's limits; "" = unknown
	Device     string // e.g. "1× H100"; "" = unknown
	BlockSize  int    // KV block size in tokens; 0 = unknown
	// InputSums are the checksums of the input files the run's requests
	// came from (a trace's metadata, summary.json, a sweep's results);
	// nil = unknown.
	InputSums map[string]string
	// InputWorkload is what else made those files' requests arrive as
	// they did (traces.Workload); nil = unknown.
	InputWorkload map[string]string
	// Arrival is how a live replay paced its requests (replay.arrival):
	// "open" sends each at its time in the input's schedule; "" unknown.
	Arrival string
	// InFlightCap is an open-loop replay's cap on requests in flight
	// (replay.concurrency, "0" for none): a send that finds every slot
	// taken waits; "" unknown.
	InFlightCap string
	// SessionWait says a live replay held each session's next turn until
	// its previous one ended (replay.session_wait; a recording without
	// the key held none): its sends followed the engine, not the schedule.
	// A simulated trace that held them records its turnaround
	// (session_wait, as simulate and verify --session-wait write it).
	SessionWait bool
	// Timeout is a live replay's per-request timeout (replay.timeout): a
	// request slower than it failed; "" unknown.
	Timeout string
	// SweepTrace is the sha256 of the trace a sweep row was simulated on
	// (the results' metadata); "" for other runs, or unknown.
	SweepTrace string
	// NoResult says why a sweep config has no figures (its outcome and
	// note: the SLO fails at every scale, an error); "" when it has them.
	NoResult string
	Metrics  Metrics
	Result   *plan.Result // the simulator's summary and cost; nil for traces
	Lat      *Latencies   // per-request latencies; nil without a trace
	Rates    *Rates       // throughput slice by slice; nil without a trace
	SLO      traces.SLO   // what Metrics.Goodput counts against; zero: none
}

// Metrics are the figures compared across runs. Latencies are seconds;
// NaN means not measured (never a guess).
type Metrics struct {
	Requests, Completed, Failed, Warmup int64
	InputTokens, OutputTokens           int64
	ReqPerSec, OutTokPerSec             float64
	TTFTP50, TTFTP99                    float64
	TPOTMean, TPOTP99                   float64
	E2EP99                              float64
	// MetSLO successes met every limit of Inputs.SLO, Goodput of them a
	// second; Goodput is NaN without an SLO or a per-request trace.
	MetSLO                          int64
	Goodput                         float64
	Devices                         int // 0 = unknown
	DeviceSeconds                   float64
	USDPerMOutEst, USDPerMOutBilled float64
}

// Latencies are the per-request latencies of successful, non-warm-up
// requests, in seconds, each sorted ascending. ByArrival holds the same
// values in the requests' arrival order, which compare's intervals
// resample in blocks (latencies under load come in bursts); nil when the
// order is not known.
type Latencies struct {
	TTFT, TPOT, E2E []float64
	ByArrival       *Latencies
	// rows are, by series (seriesOf), each value of ByArrival's place
	// among the run's requests (warm-up left out), and ids every such
	// request's ID by place: two replays' values pair up by place when
	// their ids agree. Both nil when not known.
	rows map[string][]int32
	ids  []string
}

// Rates are a trace's throughput in equal slices of its window (as many
// as it has successes), in time order: each slice's successes, output
// tokens and successes within the SLO (nil without one) a second, by
// when the success's last token came. Their means are the run's
// ReqPerSec, OutTokPerSec and Goodput; compare's throughput intervals
// resample them in blocks.
type Rates struct {
	ReqPerSec, OutTokPerSec, Goodput []float64
}

// completion is what one success adds to its run's Rates.
type completion struct {
	at        int64 // its last token, in the trace's ns
	outTokens int32
	metSLO    bool
}

// ratesOf slices the window from first to last (ns) into one slice per
// completion and counts each completion in the slice of its last token.
func ratesOf(done []completion, first, last int64, withSLO bool) *Rates {
	m := len(done)
	slice := float64(last-first) / float64(m) // ns
	perSec := 1e9 / slice
	r := &Rates{ReqPerSec: make([]float64, m), OutTokPerSec: make([]float64, m)}
	if withSLO {
		r.Goodput = make([]float64, m)
	}
	for _, c := range done {
		i := min(max(int(float64(c.at-first)/slice), 0), m-1)
		r.ReqPerSec[i] += perSec
		r.OutTokPerSec[i] += float64(c.outTokens) * perSec
		if withSLO && c.metSLO {
			r.Goodput[i] += perSec
		}
	}
	return r
}

// Sweep is a sweep results file.
type Sweep struct {
	Name string // the spec name, else the file name
	Path string
	Meta sweep.Meta
	Rows []sweep.Row
}

// CheckResultsDir refuses a folder given as results that holds no
// summary.json, such as a sweep's --out folder, saying what is wanted.
func CheckResultsDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no summary.json: want a simulate --out folder (sweep results and traces are given as their file, e.g. %s)",
			dir, filepath.Join(dir, "sweep.parquet"))
	}
	return nil
}

// Load reads each path into one Inputs: a `simulate --out` directory (its
// summary.json, joined with the per-plan traces beside it for the latency
// CDFs), a summary.json file, a sweep results Parquet file, or a
// per-request trace in any format servesim reads. Each trace's goodput is
// counted against slo unless it is zero. Reading a trace stops with
// ctx's error once ctx is done.
func Load(ctx context.Context, slo traces.SLO, paths ...string) (*Inputs, error) {
	in := &Inputs{SLO: slo}
	for _, p := range paths {
		if err := in.Add(ctx, p); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Add reads one path into in.
func (in *Inputs) Add(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	switch {
	case st.IsDir():
		if err := CheckResultsDir(path); err != nil {
			return err
		}
		return in.addSummary(ctx, filepath.Join(path, "summary.json"))
	case strings.EqualFold(filepath.Ext(path), ".json"):
		return in.addSummary(ctx, path)
	}
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		res, serr := sweep.ReadFile(path)
		if serr == nil {
			name := res.Meta.SpecName
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			}
			in.Sweeps = append(in.Sweeps, &Sweep{Name: name, Path: path, Meta: res.Meta, Rows: res.Rows})
			in.Sources = append(in.Sources, fmt.Sprintf("%s: sweep results, %d configs (spec %s, trace %s)",
				path, len(res.Rows), orDash(res.Meta.SpecName), orDash(res.Meta.TraceName)))
			return nil
		}
		r, terr := TraceRun(ctx, path, in.SLO)
		switch {
		case unreadable(serr) && unreadable(terr), // a file neither can open
			terr != nil && ctx.Err() != nil: // the trace's read was interrupted
			return terr
		case terr != nil:
			return fmt.Errorf("%s: neither sweep results (%v) nor a trace (%v)", path, serr, terr)
		}
		in.addRun(r)
		return nil
	}
	r, err := TraceRun(ctx, path, in.SLO)
	if err != nil {
		return err
	}
	in.addRun(r)
	return nil
}

// unreadable says whether err is a fault of the file itself, which every
// reader of it meets alike: a broken footer or stored schema, or corruption
// the Parquet library fails on.
func unreadable(err error) bool {
	var u *traces.UnreadableParquetError
	return errors.As(err, &u) || errors.Is(err, traces.ErrCorrupt)
}

func (in *Inputs) addRun(r *Run) {
	in.Runs = append(in.Runs, r)
	in.Sources = append(in.Sources, fmt.Sprintf("%s: %s trace, %d requests (%d completed, %d failed)",
		r.Path, r.Kind, r.Metrics.Requests, r.Metrics.Completed, r.Metrics.Failed))
}

// addSummary reads a simulate summary.json; each plan's trace beside it,
// when present, adds its latencies and batch limit.
func (in *Inputs) addSummary(ctx context.Context, path string) error {
	runs, err := SummaryRuns(ctx, path, in.SLO)
	if err != nil {
		return err
	}
	in.Runs = append(in.Runs, runs...)
	// a plan's trace beside the summary is read too (its latencies)
	withTrace := 0
	for _, r := range runs {
		if r.Path != path {
			withTrace++
		}
	}
	in.Sources = append(in.Sources, fmt.Sprintf("%s: simulated, %s, %d with a trace beside it (<plan>.parquet)", path, numfmt.Count(len(runs), "plan"), withTrace))
	return nil
}

// SummaryRuns reads a simulate summary.json (see ParseSummary) and joins
// each plan with <name>.parquet beside it when that exists, which gives
// its latencies and its goodput against slo.
func SummaryRuns(ctx context.Context, path string, slo traces.SLO) ([]*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	results, err := ParseSummary(data, path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	var runs []*Run
	for _, res := range results {
		r := resultRun(res)
		r.Path, r.Source = path, path
		tp := filepath.Join(dir, res.Name+".parquet")
		if _, err := os.Stat(tp); err == nil {
			tr, err := TraceRun(ctx, tp, slo)
			if err != nil {
				return nil, err
			}
			r.Lat, r.Path = tr.Lat, tp
			r.SLO, r.Metrics.MetSLO = tr.SLO, tr.Metrics.MetSLO
			// over the makespan, as the run's throughput (and a sweep's
			// goodput): the trace's window ends at the last token, before
			// a later refusal that the makespan still counts
			// (a rate only where the throughput is one: something completed)
			if !tr.SLO.IsZero() && res.Summary.Makespan > 0 && !math.IsNaN(r.Metrics.ReqPerSec) {
				r.Metrics.Goodput = float64(tr.Metrics.MetSLO) / res.Summary.Makespan
			}
			r.BatchLimit, r.BlockSize, r.Device = tr.BatchLimit, tr.BlockSize, tr.Device
			r.InputSums, r.InputWorkload = tr.InputSums, tr.InputWorkload
			r.SessionWait = tr.SessionWait // the summary does not record it
			if tr.Metrics.Devices > 0 {
				r.Metrics.Devices = tr.Metrics.Devices
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// ParseSummary decodes a simulate summary.json ([]plan.Result) strictly:
// one JSON array, no unknown fields, at least one result, each with a
// summary and a name unique in the file that is no path (the plan's trace
// is <name>.parquet beside it); counts and times ≥ 0, completed +
// rejected ≤ requests, energy ≥ 0 or unknown, and dollar figures the
// report can draw. name (the file) starts every error.
func ParseSummary(data []byte, name string) ([]*plan.Result, error) {
	var results []*plan.Result
	if err := jsonfile.DecodeStrict(data, &results, "a JSON array"); err != nil {
		return nil, fmt.Errorf("%s: not a simulate summary.json: %w", name, err)
	}
	if err := markUnknownEnergy(data, results); err != nil {
		return nil, fmt.Errorf("%s: not a simulate summary.json: %w", name, err)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s: no results: not a simulate summary.json (want one per plan)", name)
	}
	var errs []error
	seen := map[string]int{}
	for i, res := range results {
		at := fmt.Sprintf("%s: [%d]", name, i)
		if res == nil || res.Summary == nil {
			errs = append(errs, fmt.Errorf("%s: a result without a Summary", at))
			continue
		}
		if j, dup := seen[res.Name]; dup {
			errs = append(errs, fmt.Errorf("%s.Name %q: [%d] has that name too: want each plan once", at, res.Name, j))
		} else {
			seen[res.Name] = i
		}
		if strings.ContainsAny(res.Name, `/\`) {
			errs = append(errs, fmt.Errorf("%s.Name %q: want a plan name, not a path", at, res.Name))
		}
		if err := checkSummary(res.Summary); err != nil {
			errs = append(errs, fmt.Errorf("%s.Summary: %w", at, err))
		}
		if err := checkCost(&res.Cost); err != nil {
			errs = append(errs, fmt.Errorf("%s.Cost: %w", at, err))
		}
		for k := range res.Pools {
			p := &res.Pools[k]
			if err := checkSummary(&p.Summary); err != nil {
				errs = append(errs, fmt.Errorf("%s.Pools[%d]: %w", at, k, err))
			}
			for r := range p.Replicas {
				if err := checkSummary(&p.Replicas[r]); err != nil {
					errs = append(errs, fmt.Errorf("%s.Pools[%d].Replicas[%d]: %w", at, k, r, err))
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// energyJSON is where a summary.json holds a summary's energy, raw.
type energyJSON struct{ EnergyJoules json.RawMessage }

// markUnknownEnergy sets each summary's EnergyJoules that data holds as
// null to traces.Missing, as the simulator leaves an energy it has no
// power model for: decoding a null leaves 0, which would read as a
// measured 0 J. Files written when unknown energy was -1 need nothing:
// -1 decodes as traces.Missing. data has decoded into results strictly,
// so this second, lenient pass sees the same arrays.
func markUnknownEnergy(data []byte, results []*plan.Result) error {
	var raw []struct {
		Summary energyJSON
		Pools   []struct {
			energyJSON
			Replicas []energyJSON
		}
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	mark := func(s *sim.Summary, e energyJSON) {
		if string(e.EnergyJoules) == "null" {
			s.EnergyJoules = traces.Missing
		}
	}
	for i, res := range results {
		if res == nil || res.Summary == nil {
			continue // refused by ParseSummary
		}
		mark(res.Summary, raw[i].Summary)
		for k := range res.Pools {
			p := &res.Pools[k]
			mark(&p.Summary, raw[i].Pools[k].energyJSON)
			for r := range p.Replicas {
				mark(&p.Replicas[r], raw[i].Pools[k].Replicas[r])
			}
		}
	}
	return nil
}

// checkSummary: what the simulator counts is ≥ 0, completed + rejected ≤
// requests, times are ≥ 0 (the KV figure's time axis starts at 0), and
// energy is ≥ 0 or unknown (traces.Missing, read from null or -1).
func checkSummary(s *sim.Summary) error {
	if !(s.EnergyJoules >= 0) && s.EnergyJoules != traces.Missing {
		return fmt.Errorf("EnergyJoules = %v: want ≥ 0 J, or null when not measured", s.EnergyJoules)
	}
	counts := []struct {
		name string
		v    int64
	}{{"Requests", s.Requests}, {"Completed", s.Completed}, {"Rejected", s.Rejected}, {"Preemptions", s.Preemptions},
		{"InputTokens", s.InputTokens}, {"OutputTokens", s.OutputTokens}, {"CachedTokens", s.CachedTokens},
		{"PrefixLookups", s.PrefixLookups}, {"PrefixHits", s.PrefixHits}, {"Steps", s.Steps},
		{"Stretches", s.Stretches}, {"StretchSteps", s.StretchSteps},
		{"Queue.N", s.Queue.N}, {"TTFT.N", s.TTFT.N}, {"TPOT.N", s.TPOT.N}, {"E2E.N", s.E2E.N},
		{"KV.TotalBlocks", int64(s.KV.TotalBlocks)}, {"KV.MaxUsed", int64(s.KV.MaxUsed)}}
	for _, c := range counts {
		if c.v < 0 {
			return fmt.Errorf("%s = %d: want ≥ 0", c.name, c.v)
		}
	}
	if s.Completed > s.Requests-s.Rejected {
		return fmt.Errorf("%d Completed + %d Rejected: want ≤ Requests (%d)", s.Completed, s.Rejected, s.Requests)
	}
	times := []struct {
		name string
		v    float64
	}{{"FirstArrival", s.FirstArrival}, {"Makespan", s.Makespan}, {"BusySeconds", s.BusySeconds}, {"DeviceSeconds", s.DeviceSeconds}}
	for _, t := range times {
		if !(t.v >= 0) {
			return fmt.Errorf("%s = %v: want ≥ 0 seconds", t.name, t.v)
		}
	}
	for i, p := range s.KV.Series {
		if !(p.T >= 0) || p.Used < 0 {
			return fmt.Errorf("KV.Series[%d] = {T: %v, Used: %d}: want T ≥ 0 and Used ≥ 0", i, p.T, p.Used)
		}
	}
	return nil
}

// maxUSD bounds every dollar figure of a result: far beyond any real
// cost, and small enough that the report's per-1M-token bars stay finite.
const maxUSD = 1e30

// checkCost: device-seconds ≥ 0 and dollar figures within ±maxUSD.
func checkCost(c *model.CostBreakdown) error {
	if !(c.DeviceSeconds >= 0) {
		return fmt.Errorf("DeviceSeconds = %v: want ≥ 0", c.DeviceSeconds)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"HardwareUSD", c.HardwareUSD}, {"EnergyUSD", c.EnergyUSD}, {"TotalUSD", c.TotalUSD}, {"PerMOutputUSD", c.PerMOutputUSD},
		{"PerMTotalUSD", c.PerMTotalUSD}, {"BilledUSD", c.BilledUSD}, {"BilledPerMOutputUSD", c.BilledPerMOutputUSD}} {
		if !(math.Abs(f.v) <= maxUSD) {
			return fmt.Errorf("%s = %v: want at most %g in magnitude", f.name, f.v, maxUSD)
		}
	}
	return nil
}

// resultRun is a simulated plan's run from its summary.
func resultRun(res *plan.Result) *Run {
	s, c := res.Summary, res.Cost
	dist := func(d sim.Dist, v float64) float64 {
		if d.N == 0 {
			return math.NaN()
		}
		return v
	}
	// A request that did not complete failed: it was rejected or, after
	// an out-of-memory stop, not run (as its trace row says), arrived or
	// not: Requests counts both, as the trace has a row for each.
	m := Metrics{
		Requests: s.Requests, Completed: s.Completed, Failed: s.Requests - s.Completed,
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens,
		ReqPerSec: s.ReqPerSec, OutTokPerSec: s.OutputTokPerSec,
		TTFTP50: dist(s.TTFT, s.TTFT.P50), TTFTP99: dist(s.TTFT, s.TTFT.P99),
		TPOTMean: dist(s.TPOT, s.TPOT.Mean), TPOTP99: dist(s.TPOT, s.TPOT.P99),
		E2EP99:        dist(s.E2E, s.E2E.P99),
		DeviceSeconds: c.DeviceSeconds, Goodput: math.NaN(),
		USDPerMOutEst: math.NaN(), USDPerMOutBilled: math.NaN(),
	}
	if s.Makespan > 0 && s.DeviceSeconds > 0 {
		m.Devices = int(math.Round(s.DeviceSeconds / s.Makespan))
	}
	// No time elapsed (nothing arrived, or all was refused on arrival), or
	// nothing completed in the window (a cluster held to an OOM, whose
	// summary.json writes its rates null): the simulator's 0 per second is
	// no measured rate, as a live run with no success has none.
	if !(s.Makespan > 0) || s.Completed == 0 {
		m.ReqPerSec, m.OutTokPerSec = math.NaN(), math.NaN()
	}
	if s.OutputTokens > 0 {
		m.USDPerMOutEst = c.PerMOutputUSD
		if c.HasBilled {
			m.USDPerMOutBilled = c.BilledPerMOutputUSD
		}
	}
	// nil in a summary written before it named its inputs
	return &Run{Name: res.Name, Kind: "simulated", Policy: s.Policy, Metrics: m, Result: res,
		InputSums: res.InputChecksums, InputWorkload: res.InputWorkload}
}

// TraceRun computes a run's metrics from a per-request trace (live or
// simulated): successful, non-warm-up requests only; failures are counted
// separately. Throughput and goodput (against slo, unless it is zero) are
// over the run's traces.Window, as record reports them. Device-seconds
// need the device count, taken from the metadata's "N× DEVICE"; costs need
// prices, which a trace does not carry, so they stay unknown.
func TraceRun(ctx context.Context, path string, slo traces.SLO) (*Run, error) {
	r, err := traces.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	meta := r.Meta()
	rows := traces.WithContext(ctx, r) // a long trace's read stops at an interrupt
	run := &Run{
		Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
		Path: path, Kind: meta.Source, Device: meta.Device, InputSums: meta.Checksums,
		InputWorkload: traces.Workload(meta), Arrival: meta.Extra["replay.arrival"],
		InFlightCap: meta.Extra["replay.concurrency"], Timeout: meta.Extra["replay.timeout"],
		SessionWait: meta.Extra["replay.session_wait"] == "true" || meta.Extra["session_wait"] != "",
	}
	if run.Kind == "" {
		run.Kind = "unlabelled"
	}
	run.Policy, run.BatchLimit = splitPolicy(meta.BatchPolicy)
	if p := meta.Extra["plan"]; p != "" {
		if pl, err := plan.ParseStored([]byte(p)); err == nil {
			run.Policy, run.BatchLimit, run.BlockSize = pl.Batch.Strategy, pl.BatchLimit(), pl.Device.BlockSize
		}
	}
	m := &run.Metrics
	m.Devices = deviceCount(meta.Device)
	lat := &Latencies{rows: map[string][]int32{}}
	var window traces.Window
	var done []completion
	for rows.Next() {
		q := rows.At()
		if q.Warmup {
			m.Warmup++
			continue
		}
		m.Requests++
		place := int32(len(lat.ids))
		lat.ids = append(lat.ids, q.ID)
		window.Add(q)
		if !q.Succeeded() {
			if q.Observed() {
				m.Failed++
			}
			continue
		}
		m.Completed++
		m.InputTokens += int64(q.PromptTokens)
		if q.UsagePrompt != traces.Missing {
			m.InputTokens += int64(q.UsagePrompt - q.PromptTokens)
		}
		m.OutputTokens += int64(q.ServedOutput())
		met := !slo.IsZero() && slo.Met(q)
		if met {
			m.MetSLO++
		}
		done = append(done, completion{at: q.LastToken, outTokens: q.ServedOutput(), metSLO: met})
		if v, ok := q.TTFT(); ok {
			lat.TTFT = append(lat.TTFT, float64(v)/1e9)
			lat.rows["TTFT"] = append(lat.rows["TTFT"], place)
		}
		if v, ok := q.TPOT(); ok {
			lat.TPOT = append(lat.TPOT, v/1e9)
			lat.rows["TPOT"] = append(lat.rows["TPOT"], place)
		}
		if v, ok := q.E2E(); ok {
			lat.E2E = append(lat.E2E, float64(v)/1e9)
			lat.rows["E2E"] = append(lat.rows["E2E"], place)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if m.Requests > 0 && m.Completed == 0 && m.Failed == 0 {
		return nil, fmt.Errorf("%s: no observed requests (an input trace, not a run)", path)
	}
	lat.ByArrival = &Latencies{TTFT: slices.Clone(lat.TTFT), TPOT: slices.Clone(lat.TPOT), E2E: slices.Clone(lat.E2E),
		rows: lat.rows, ids: lat.ids}
	lat.rows, lat.ids = nil, nil
	sort.Float64s(lat.TTFT)
	sort.Float64s(lat.TPOT)
	sort.Float64s(lat.E2E)
	run.Lat = lat
	nan := math.NaN()
	m.ReqPerSec, m.OutTokPerSec, m.DeviceSeconds, m.Goodput = nan, nan, nan, nan
	m.USDPerMOutEst, m.USDPerMOutBilled = nan, nan
	// Every request was counted against the SLO, whether or not a success
	// opened the window that its goodput, as its throughput, is over.
	run.SLO = slo
	if first, last, ok := window.Bounds(); ok {
		run.Rates = ratesOf(done, first, last, !slo.IsZero())
	}
	if wall := window.Duration().Seconds(); wall > 0 {
		m.ReqPerSec = window.PerSec(m.Completed)
		m.OutTokPerSec = window.PerSec(m.OutputTokens)
		if !slo.IsZero() {
			m.Goodput = window.PerSec(m.MetSLO)
		}
		if m.Devices > 0 {
			m.DeviceSeconds = float64(m.Devices) * wall
		}
	}
	m.TTFTP50, m.TTFTP99 = Quantile(lat.TTFT, 0.50), Quantile(lat.TTFT, 0.99)
	m.TPOTMean, m.TPOTP99 = mean(lat.TPOT), Quantile(lat.TPOT, 0.99)
	m.E2EP99 = Quantile(lat.E2E, 0.99)
	return run, nil
}

// splitPolicy splits trace metadata "strategy limits" in two.
func splitPolicy(s string) (policy, limit string) {
	policy, limit, _ = strings.Cut(strings.TrimSpace(s), " ")
	return policy, strings.TrimSpace(limit)
}

// deviceCount reads N from "N× NAME" (or "Nx NAME"); 0 when absent.
func deviceCount(device string) int {
	f := strings.Fields(device)
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimRight(f[0], "×xX"))
	if err != nil || n < 1 || !strings.ContainsAny(f[0], "×xX") {
		return 0
	}
	return n
}

// Quantile is the nearest-rank q-quantile of sorted values; NaN when empty.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[nearestRank(q, len(sorted))-1]
}

// nearestRank is the rank (from 1) of the nearest-rank q-quantile of n
// values; 0 when n is.
func nearestRank(q float64, n int) int {
	return min(max(int(math.Ceil(q*float64(n))), 1), n)
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// RowRun is a sweep row as a run, for tables and comparisons; it is named
// as the report's tables name the config ("#3 label", "index=7 label").
func RowRun(sw *Sweep, row *sweep.Row) *Run {
	limit := ""
	if pl, err := plan.ParseStored([]byte(row.PlanTOML)); err == nil {
		limit = pl.BatchLimit()
	}
	devices := int(row.Devices())
	noResult := ""
	if math.IsNaN(row.ReqPerSec) { // no complete run at any scale
		noResult = row.Outcome
		if row.Note != "" {
			noResult += ": " + row.Note
		}
	}
	return &Run{
		NoResult: noResult, SweepTrace: sw.Meta.TraceSHA256, InputSums: sw.Meta.TraceChecksums,
		InputWorkload: rowWorkload(sw.Meta.TraceWorkload, row.Scale),
		Name:          configName(row) + " " + row.Label, Path: sw.Path, Kind: "sweep " + sw.Name, Policy: row.Strategy, BatchLimit: limit,
		Device: fmt.Sprintf("%d× %s", devices, row.Device), BlockSize: int(row.BlockSize),
		Metrics: Metrics{
			ReqPerSec: row.ReqPerSec, OutTokPerSec: row.OutTokPerSec,
			TTFTP50: row.TTFTP50, TTFTP99: row.TTFTP99, TPOTMean: row.TPOTMean, TPOTP99: row.TPOTP99,
			E2EP99: row.E2EP99, Devices: devices, DeviceSeconds: row.DeviceSeconds,
			USDPerMOutEst: row.USDPerMOutEst, USDPerMOutBilled: row.USDPerMOutBilled,
			Goodput: math.NaN(), // the row's goodput is against the sweep's SLO, not Inputs.SLO
		},
	}
}

// rowWorkload is the workload of a sweep row's figures: its trace's
// (nil: unknown) at the row's arrival-rate scale, which is a time scale
// of 1/scale as a replay of the candidate at that rate records it.
func rowWorkload(trace map[string]string, scale float64) map[string]string {
	if trace == nil || !(scale > 0) || math.IsInf(scale, 0) {
		return trace
	}
	m := traces.Meta{Extra: maps.Clone(trace)}
	m.Set("replay.time_scale", strconv.FormatFloat(1/scale, 'g', -1, 64))
	return traces.Workload(m)
}

// ErrNoRuns is Select's error for inputs that hold no run at all; its
// other errors say that sel names none, or several.
var ErrNoRuns = errors.New("no runs in the input")

// Select finds one run in the inputs of a single path: the only run, or
// the one named by sel (a plan name or trace name, a sweep row's label,
// "index=N", or its rank as "#N", as the report names it, or "rank=N").
func (in *Inputs) Select(sel string) (*Run, error) {
	var cands []*Run
	for _, r := range in.Runs {
		if sel == "" || r.Name == sel {
			cands = append(cands, r)
		}
	}
	for _, sw := range in.Sweeps {
		for i := range sw.Rows {
			row := &sw.Rows[i]
			if matchRow(row, sel) {
				cands = append(cands, RowRun(sw, row))
			}
		}
	}
	switch {
	case len(cands) == 1:
		return cands[0], nil
	case len(cands) == 0 && sel == "":
		return nil, ErrNoRuns
	case len(cands) == 0:
		return nil, fmt.Errorf("no run or config matches %q%s%s", sel, rankHint(sel), in.runNames())
	case sel == "":
		return nil, fmt.Errorf("%d runs or configs in the input: name one (plan name, sweep label, #N for the rank the report shows, or index=N)%s",
			len(cands), in.runNames())
	}
	return nil, fmt.Errorf("%d runs or configs match %q", len(cands), sel)
}

// selectNames is how many run names a selector's error lists.
const selectNames = 8

// runNames lists the names of the runs (plans and traces, not sweep rows,
// which the report's table names) for a selector's error: a plan is named
// by its TOML file's stem, which the user may not have at hand.
func (in *Inputs) runNames() string {
	if len(in.Runs) == 0 {
		return ""
	}
	var names []string
	for _, r := range in.Runs[:min(len(in.Runs), selectNames)] {
		names = append(names, strconv.Quote(r.Name))
	}
	list := strings.Join(names, ", ")
	if more := len(in.Runs) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return ": its runs are " + list
}

// rankHint tells how to name a rank when sel, which matched nothing, is a
// bare number: one is a name (a plan or label may be a number), never a
// rank, so that a selector means the same in every input.
func rankHint(sel string) string {
	if n, err := strconv.ParseInt(sel, 10, 64); err != nil || n <= 0 {
		return ""
	}
	return fmt.Sprintf(": a rank is named #%s or rank=%s", sel, sel)
}

func matchRow(row *sweep.Row, sel string) bool {
	if sel == "" {
		return true
	}
	if v, ok := strings.CutPrefix(sel, "index="); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && row.Index == n
	}
	if v, ok := strings.CutPrefix(sel, "rank="); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && n > 0 && row.Rank == n
	}
	// the report's name of a ranked config; "#x" may be a label
	if v, ok := strings.CutPrefix(sel, "#"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n > 0 && row.Rank == n
		}
	}
	return row.Label == sel
}
