package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/servesim/servesim/internal/jsonfile"
)

// LoadResult reads a verify.json written by Run (through servesim
// verify); see ParseResult. Its relative paths name files from its own
// directory (Result.RelativeTo); LoadResult returns them as paths from
// the current directory.
func LoadResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res, err := ParseResult(data, path)
	if err != nil {
		return nil, err
	}
	res.resolve(filepath.Dir(path))
	return res, nil
}

// ParseResult decodes a verify.json, strictly: one JSON object, no
// unknown fields, version ResultVersion, and the invariants Run
// establishes and the report relies on (see Result.check). name (the
// file) starts every error.
func ParseResult(data []byte, name string) (*Result, error) {
	var res Result
	if err := jsonfile.DecodeStrict(data, &res, "a JSON object"); err != nil {
		// Another version's fields would fail as unknown: say the version.
		var v struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &v) == nil && v.Version != ResultVersion {
			return nil, fmt.Errorf("%s: version %d, want %d: not a servesim verify result", name, v.Version, ResultVersion)
		}
		return nil, fmt.Errorf("%s: not a servesim verify result: %w", name, err)
	}
	if res.Version != ResultVersion {
		return nil, fmt.Errorf("%s: version %d, want %d: not a servesim verify result", name, res.Version, ResultVersion)
	}
	if err := res.check(); err != nil {
		return nil, prefixErrors(name, err)
	}
	return &res, nil
}

// check reports what in res Run would never have written: at least one
// candidate, each with a unique rank ≥ 1 (the report names figures by
// rank), a status, and rows in MetricNames order (the report's scatter
// places row j at metric j) whose errors and verdicts are what
// CompareMetrics gives; counts ≥ 0, and the totals (tolerance_failures,
// incomplete) that the rows and statuses give.
func (res *Result) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(res.Candidates) == 0 {
		bad("candidates: none: nothing was verified")
	}
	if res.Requests < 1 {
		bad("requests = %d: want ≥ 1 (the slice every candidate replayed)", res.Requests)
	}
	t := res.Tolerances
	if !(t.Throughput >= 0 && t.TTFT >= 0 && t.TPOT >= 0 && t.P99 >= 0 && t.Cost >= 0) {
		bad("tolerances %+v: want fractions ≥ 0", t)
	}
	ranks := map[int64]int{}
	failures, incomplete := 0, 0
	for i := range res.Candidates {
		c := &res.Candidates[i]
		at := fmt.Sprintf("candidates[%d]", i)
		if c.Rank < 1 {
			bad("%s.rank = %d: want ≥ 1", at, c.Rank)
		} else if j, dup := ranks[c.Rank]; dup {
			bad("%s.rank = %d: candidates[%d] has that rank too: want each rank once", at, c.Rank, j)
		} else {
			ranks[c.Rank] = i
		}
		if c.Index < 0 {
			bad("%s.index = %d: want ≥ 0", at, c.Index)
		}
		if c.Status == "" {
			bad("%s.status: empty: want %q or why the candidate was not measured", at, StatusOK)
		}
		if !knownCostBasis(c.CostBasis) {
			bad("%s.cost_basis = %q: want %q or %q", at, c.CostBasis, CostHardwareEnergy, CostHardware)
		}
		if c.Status == StatusOK {
			if !(c.RateScale > 0) {
				bad("%s.rate_scale = %v: want > 0 for a measured candidate", at, c.RateScale)
			}
		} else {
			incomplete++
		}
		for _, m := range []struct {
			what string
			m    *Metrics
		}{{"predicted", &c.Predicted}, {"measured", &c.Measured}} {
			if err := m.m.check(); err != nil {
				bad("%s.%s: %w", at, m.what, err)
			}
		}
		for k := range c.Repeats {
			rp := &c.Repeats[k]
			if rp.Status == "" {
				bad("%s.repeats[%d].status: empty: want %q or why the run failed", at, k, StatusOK)
			} else if c.Status == StatusOK && rp.Status != StatusOK {
				bad("%s.repeats[%d].status = %q: a measured candidate's runs all succeeded", at, k, rp.Status)
			}
			if err := rp.Measured.check(); err != nil {
				bad("%s.repeats[%d].measured: %w", at, k, err)
			}
		}
		if len(c.Rows) > len(MetricNames) {
			bad("%s.rows: %d rows, want at most %d (one per metric)", at, len(c.Rows), len(MetricNames))
		}
		for j := range c.Rows {
			r := &c.Rows[j]
			if j < len(MetricNames) && r.Metric != MetricNames[j] {
				bad("%s.rows[%d].metric = %q: want %q (the rows follow verify's metric order)", at, j, r.Metric, MetricNames[j])
			}
			if err := r.check(); err != nil {
				bad("%s.rows[%d]: %w", at, j, err)
			}
			// The range is the spread of the candidate's runs: the report
			// counts them from repeats.
			if (r.MeasuredMin != nil || r.MeasuredMax != nil) && len(c.Repeats) < 2 {
				bad("%s.rows[%d]: measured_min/measured_max with %d repeats: want a range only for a candidate measured 2 or more times", at, j, len(c.Repeats))
			}
			if c.Status == StatusOK && r.Pass != nil && !*r.Pass {
				failures++
			}
		}
	}
	if res.ToleranceFailures != failures {
		bad("tolerance_failures = %d: the measured candidates' rows fail %d", res.ToleranceFailures, failures)
	}
	if res.Incomplete != incomplete {
		bad("incomplete = %d: want %d, the candidates with a status other than %q", res.Incomplete, incomplete, StatusOK)
	}
	if !knownCostBasis(res.Ranking.CostBasis) {
		bad("ranking.cost_basis = %q: want %q or %q", res.Ranking.CostBasis, CostHardwareEnergy, CostHardware)
	}
	for _, t := range []struct {
		what string
		v    *float64
	}{{"ranking.kendall_tau_sweep_rank", res.Ranking.TauSweep}, {"ranking.kendall_tau_predicted_cost", res.Ranking.TauPredicted}} {
		if t.v != nil && !(*t.v >= -1 && *t.v <= 1) {
			bad("%s = %v: want a rank correlation in [-1, 1]", t.what, *t.v)
		}
	}
	errs = append(errs, res.MedianAbsError.check("median_abs_error")...)
	if rr := res.Refit; rr != nil {
		errs = append(errs, rr.MetricErrorBefore.check("refit.metric_error_before")...)
		errs = append(errs, rr.MetricErrorAfter.check("refit.metric_error_after")...)
		errs = append(errs, rr.MetricErrorAtSpeed.check("refit.metric_error_at_speed")...)
	}
	cs := res.Consistency
	if err := checkDiffer("consistency", cs.Compared, cs.Differ, cs.Fraction); err != nil {
		errs = append(errs, err)
	}
	for i, r := range cs.PerCandidate {
		at := fmt.Sprintf("consistency.per_candidate[%d]", i)
		if r.Label == "" {
			bad("%s.label: empty: want the candidate compared with the reference", at)
		}
		if err := checkDiffer(at, r.Compared, r.Differ, r.Fraction); err != nil {
			errs = append(errs, err)
		} else if r.Compared > cs.Compared {
			// Each request it compares is one the totals compare.
			bad("%s.compared = %d: want ≤ consistency.compared (%d)", at, r.Compared, cs.Compared)
		}
	}
	return errors.Join(errs...)
}

// checkDiffer: 0 ≤ differ ≤ compared, and fraction is differ ÷ compared
// (0 with none compared); at names the counts' object.
func checkDiffer(at string, compared, differ int, fraction float64) error {
	if compared < 0 || differ < 0 || differ > compared {
		return fmt.Errorf("%s: %d of %d requests differ: want 0 ≤ differ ≤ compared", at, differ, compared)
	}
	if want := float64(differ) / float64(max(compared, 1)); !(math.Abs(fraction-want) <= 1e-9) {
		return fmt.Errorf("%s.fraction_differ = %v: want differ ÷ compared = %d ÷ %d = %v", at, fraction, differ, compared, want)
	}
	return nil
}

// check: counts are ≥ 0 and completed ≤ requests.
func (m *Metrics) check() error {
	switch {
	case m.Requests < 0 || m.Completed < 0 || m.OutputTokens < 0:
		return fmt.Errorf("requests %d, completed %d, output_tokens %d: want counts ≥ 0", m.Requests, m.Completed, m.OutputTokens)
	case m.Completed > m.Requests:
		return fmt.Errorf("completed = %d: want ≤ requests (%d)", m.Completed, m.Requests)
	}
	return nil
}

// check: a row's error and verdict are what CompareMetrics gives for its
// predicted and measured values and tolerance (≥ 0). Any predicted ÷
// measured is taken, as CompareMetrics writes any: the report leaves a
// ratio its log axis cannot draw off the axis, by name.
func (r *MetricRow) check() error {
	p, m := r.Predicted, r.Measured
	var e float64
	finite := false
	if p != nil && m != nil {
		e, finite = relError(*p, *m)
	}
	switch {
	case finite:
		if r.RelError == nil || *r.RelError != e {
			return fmt.Errorf("rel_error = %s: want (predicted − measured) / measured = %v", fmtOpt(r.RelError), e)
		}
	case r.RelError != nil && p != nil && m != nil:
		return fmt.Errorf("rel_error = %v for predicted %v against measured %v: want null (an infinite error)", *r.RelError, *p, *m)
	case r.RelError != nil:
		return fmt.Errorf("rel_error = %v without a predicted and a measured value: want null", *r.RelError)
	}
	if lo, hi := r.MeasuredMin, r.MeasuredMax; lo != nil || hi != nil {
		// The mean of the runs lies in their range, up to rounding.
		if lo == nil || hi == nil || m == nil || !(*lo <= *m+1e-9*math.Abs(*m) && *m <= *hi+1e-9*math.Abs(*m)) {
			return fmt.Errorf("measured %s, range %s … %s: want both ends and the measured mean between them", fmtOpt(m), fmtOpt(lo), fmtOpt(hi))
		}
	}
	compared := p != nil && m != nil // a verdict even when the error is infinite
	switch {
	case !(r.Tolerance >= 0):
		return fmt.Errorf("tolerance = %v: want ≥ 0 (0: reported, not gated)", r.Tolerance)
	case r.Pass == nil && finite && r.Tolerance > 0:
		return fmt.Errorf("pass = null, but rel_error %v against tolerance %v gives a verdict", e, r.Tolerance)
	case r.Pass == nil && compared && r.Tolerance > 0:
		return fmt.Errorf("pass = null, but predicted %v against measured 0 with tolerance %v is a failure", *p, r.Tolerance)
	case r.Pass == nil:
		return nil
	case !compared || r.Tolerance == 0:
		return fmt.Errorf("pass = %v without a predicted and a measured value and a tolerance > 0 to judge them by: want null", *r.Pass)
	case !finite && *r.Pass:
		return fmt.Errorf("pass = true, but predicted %v against measured 0 is an infinite error", *p)
	case finite && *r.Pass != within(e, r.Tolerance):
		return fmt.Errorf("pass = %v, but |rel_error| %v against tolerance %v gives %v", *r.Pass, math.Abs(e), r.Tolerance, !*r.Pass)
	}
	return nil
}

func fmtOpt(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// prefixErrors puts name before each of the joined errors in err, one a
// line.
func prefixErrors(name string, err error) error {
	var out []error
	for _, e := range jsonfile.Lines(err) {
		out = append(out, fmt.Errorf("%s: %w", name, e))
	}
	return errors.Join(out...)
}

// knownCostBasis: one of the cost bases, or "" (not compared, or a file
// written before the basis was recorded, which priced hardware alone).
func knownCostBasis(b string) bool { return b == "" || b == CostHardware || b == CostHardwareEnergy }
