package verify_test

import (
	"encoding/json"
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

// A verify.json reads back whatever predicted ÷ measured its rows hold:
// CompareMetrics writes rows whose ratio under- or overflows (1e308
// predicted against 1e-10 measured), and ParseResult once refused them,
// so that report --verify could not read a file verify had written. The
// report leaves such a ratio off its log axis (a ratio that underflows
// to 0 made it panic, one that overflows failed or panicked) and draws
// the rest.
func TestParseResultReadsEveryRatioItWrites(t *testing.T) {
	for _, c := range [][2]float64{
		{1e-300, 1e300}, {1.7e308, 1}, {1e308, 1e-10}, {5e-324, 1}, {1, 5e-324}, {1, 1.7e308},
		{1e100, 1}, {1, 1e100}, {1.2, 1},
	} {
		p, m := c[0], c[1]
		rows := verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())
		failures := 0
		for _, r := range rows {
			if r.Pass != nil && !*r.Pass {
				failures++
			}
		}
		res := verify.Result{Version: verify.ResultVersion, Requests: 1, ToleranceFailures: failures,
			Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusOK}, RateScale: 1, Rows: rows}}}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got, err := verify.ParseResult(data, "v.json")
		if err != nil {
			t.Errorf("%v ÷ %v: verify.json written does not read back: %v", p, m, err)
			continue
		}
		if _, err := (report.VerificationSection{Result: got}).Blocks(nil); err != nil {
			t.Errorf("%v ÷ %v: %v", p, m, err)
		}
	}
}
