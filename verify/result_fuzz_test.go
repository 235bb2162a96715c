package verify_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/verify"
)

// FuzzParseResult: ParseResult never panics; an error names the file on
// every line; a result it accepts has the version, candidates with
// unique ranks ≥ 1 and rows in metric order, survives encoding and
// parsing again unchanged, and the report's verification section draws
// it. The seeds (testdata/fuzz/FuzzParseResult) are verify.json files
// servesim verify wrote, one with GPU and refit results, and broken
// variants.
func FuzzParseResult(f *testing.F) {
	const name = "out/verify.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := verify.ParseResult(data, name)
		if err != nil {
			for _, e := range jsonfile.Lines(err) {
				if !strings.HasPrefix(e.Error(), name+": ") {
					t.Fatalf("error does not start with the file name: %q", e)
				}
			}
			return
		}
		if res.Version != verify.ResultVersion || len(res.Candidates) == 0 || res.Requests < 1 {
			t.Fatalf("accepted version %d, %d candidates, %d requests", res.Version, len(res.Candidates), res.Requests)
		}
		ranks := map[int64]bool{}
		failures, incomplete := 0, 0
		for _, c := range res.Candidates {
			if c.Rank < 1 || ranks[c.Rank] || c.Status == "" {
				t.Fatalf("accepted candidate rank %d (seen: %v), status %q", c.Rank, ranks[c.Rank], c.Status)
			}
			ranks[c.Rank] = true
			if c.Status != verify.StatusOK {
				incomplete++
			}
			if len(c.Rows) > len(verify.MetricNames) {
				t.Fatalf("accepted %d rows", len(c.Rows))
			}
			for j, r := range c.Rows {
				if r.Metric != verify.MetricNames[j] {
					t.Fatalf("accepted row %d for metric %q", j, r.Metric)
				}
				if c.Status == verify.StatusOK && r.Pass != nil && !*r.Pass {
					failures++
				}
			}
		}
		if failures != res.ToleranceFailures || incomplete != res.Incomplete {
			t.Fatalf("accepted %d tolerance failures (rows: %d), %d incomplete (statuses: %d)", res.ToleranceFailures, failures, res.Incomplete, incomplete)
		}
		enc, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("encoding an accepted result: %v", err)
		}
		again, err := verify.ParseResult(enc, name)
		if err != nil {
			t.Fatalf("parsing an accepted result encoded again: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(res, again) {
			t.Fatalf("encoding and parsing again changed the result:\n%+v\n%+v", res, again)
		}
		// The traces are files; the fuzzer's paths could be devices.
		for i := range res.Candidates {
			res.Candidates[i].Trace, res.Candidates[i].SimTrace = "", ""
		}
		if _, err := (report.VerificationSection{Result: res}).Blocks(nil); err != nil {
			t.Fatalf("the report cannot draw an accepted result: %v", err)
		}
	})
}

// The report draws predicted ÷ measured on a log axis: a ratio that
// underflows to 0 made it panic, one that overflows (or nearly) failed or
// panicked. ParseResult refuses such rows; at the bound the report draws.
func TestParseResultKeepsRatiosDrawable(t *testing.T) {
	for _, c := range []struct {
		p, m float64
		ok   bool
	}{
		{1e-300, 1e300, false}, {1.7e308, 1, false}, {1e308, 1e-10, false}, {5e-324, 1, false},
		{1e100, 1, true}, {1, 1e100, true}, {1.2, 1, true},
	} {
		row := verify.MetricRow{Metric: verify.MetricNames[0], Predicted: &c.p, Measured: &c.m}
		if e := (c.p - c.m) / c.m; !math.IsInf(e, 0) {
			row.RelError = &e
		}
		res := verify.Result{Version: verify.ResultVersion, Requests: 1, Candidates: []verify.CandidateResult{{Rank: 1, Repeat: verify.Repeat{Status: verify.StatusOK}, RateScale: 1,
			Rows: []verify.MetricRow{row}}}}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := verify.ParseResult(data, "v.json")
		if (err == nil) != c.ok {
			t.Errorf("%v ÷ %v: err = %v, want accepted %v", c.p, c.m, err, c.ok)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "want a ratio within") {
				t.Errorf("%v ÷ %v: %v", c.p, c.m, err)
			}
			continue
		}
		if _, err := (report.VerificationSection{Result: got}).Blocks(nil); err != nil {
			t.Errorf("%v ÷ %v: %v", c.p, c.m, err)
		}
	}
}
