package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
)

func runSmall(t *testing.T, opt Options) *Results {
	t.Helper()
	s, err := LoadSpec("testdata/small.toml")
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	res, err := Run(context.Background(), s, ex, short(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func fileBytes(t *testing.T, res *Results) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunSmallSweep(t *testing.T) {
	res := runSmall(t, Options{Workers: 2})
	if len(res.Rows) != 12 || res.Meta.TotalConfigs != 12 {
		t.Fatalf("%d rows of %d configs, want 12", len(res.Rows), res.Meta.TotalConfigs)
	}
	outcomes, skips := Counts(res.Rows)
	if skips[SkipIf] != 1 || outcomes[OutcomeSkipped] != 1 {
		t.Errorf("skips %v outcomes %v", skips, outcomes)
	}
	ranked := 0
	for i, r := range res.Rows {
		if r.Index != int64(i) {
			t.Fatalf("row %d has index %d", i, r.Index)
		}
		if r.Outcome != OutcomeOK {
			continue
		}
		ranked++
		if r.Rank < 1 || !r.SLOMet || !(r.Scale > 0) || !(r.USDPerMOutEst > 0) || len(r.Curve) == 0 {
			t.Errorf("%s: rank %d slo %v scale %v cost %v curve %d", r.Label, r.Rank, r.SLOMet, r.Scale, r.USDPerMOutEst, len(r.Curve))
		}
		if r.TTFTP99 > 1.5 || r.TPOTP99 > 0.040 || r.GoodputFraction < 0.9 {
			t.Errorf("%s: SLO met but P99 TTFT %v TPOT %v goodput %v", r.Label, r.TTFTP99, r.TPOTP99, r.GoodputFraction)
		}
		if !math.IsNaN(r.USDPerMOutBilled) {
			t.Errorf("%s: billed cost %v without API prices", r.Label, r.USDPerMOutBilled)
		}
		if math.IsNaN(r.TailPenalty) || r.TailPenalty < -1e-9 {
			t.Errorf("%s: tail penalty %v: the SLO rate cannot beat saturation", r.Label, r.TailPenalty)
		}
		if _, err := plan.Parse([]byte(r.PlanTOML)); err != nil {
			t.Errorf("%s: plan: %v", r.Label, err)
		}
	}
	if ranked == 0 {
		t.Fatal("no config met the SLO")
	}
	top := Top(res.Rows, 3)
	for i := 1; i < len(top); i++ {
		if top[i].USDPerMOutEst < top[i-1].USDPerMOutEst {
			t.Errorf("rank %d is cheaper than rank %d", top[i].Rank, top[i-1].Rank)
		}
	}
}

func TestResultsRoundTrip(t *testing.T) {
	res := runSmall(t, Options{Workers: 2})
	path := filepath.Join(t.TempDir(), "r.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Meta, res.Meta) {
		t.Errorf("meta %+v, want %+v", back.Meta, res.Meta)
	}
	if len(back.Rows) != len(res.Rows) {
		t.Fatalf("%d rows, want %d", len(back.Rows), len(res.Rows))
	}
	for i := range res.Rows {
		a, b := res.Rows[i], back.Rows[i]
		ja, jb := rowJSON(a), rowJSON(b)
		if ja != jb {
			t.Errorf("row %d differs:\n%s\n%s", i, ja, jb)
		}
	}
	// ReadResults is the rows of ReadFile.
	rows, err := ReadResults(path)
	if err != nil || len(rows) != len(res.Rows) {
		t.Fatal(err)
	}
	// WriteResults writes rows with empty metadata, readable back.
	p2 := filepath.Join(t.TempDir(), "rows.parquet")
	if err := WriteResults(p2, rows); err != nil {
		t.Fatal(err)
	}
	if again, err := ReadResults(p2); err != nil || len(again) != len(rows) {
		t.Fatalf("%v, %d rows", err, len(again))
	}
	if cols := ColumnNames(); cols[0] != "index" || !strings.Contains(strings.Join(cols, ","), "curve_out_tok_per_s") {
		t.Errorf("columns %v", cols)
	}
}

// rowJSON renders a row with NaN spelled out, for comparison.
func rowJSON(r Row) string {
	b, _ := json.Marshal(struct {
		Row
		Curve string
	}{Row: nanless(r), Curve: curveString(r.Curve)})
	return string(b)
}

func nanless(r Row) Row {
	for _, f := range []*float64{&r.MaxWaitMs, &r.GPUMemoryUtilization, &r.RateScale, &r.Scale, &r.ArrivalRate, &r.GoodputFraction, &r.GoodputReqPerSec,
		&r.GoodputOutTokPerSec, &r.GoodputOutTokPerSecPerDevice, &r.ReqPerSec, &r.OutTokPerSec, &r.TTFTP50, &r.TTFTP99,
		&r.TPOTMean, &r.TPOTP99, &r.E2EP99, &r.DeviceSeconds, &r.USDPerMOutEst, &r.USDPerMTotalEst, &r.USDPerMOutBilled,
		&r.SatScale, &r.SatOutTokPerSec, &r.SatUSDPerMOut, &r.TailPenalty, &r.KneeScale} {
		if math.IsNaN(*f) {
			*f = -12345
		}
	}
	r.Curve = nil
	return r
}

func curveString(c []CurvePoint) string {
	var sb strings.Builder
	for _, p := range c {
		b, _ := json.Marshal(p)
		sb.Write(b)
	}
	return sb.String()
}

// Results do not depend on the number of workers, and two runs give the
// same bytes.
func TestRunDeterministic(t *testing.T) {
	a := fileBytes(t, runSmall(t, Options{Workers: 1}))
	b := fileBytes(t, runSmall(t, Options{Workers: 3}))
	if !bytes.Equal(a, b) {
		t.Fatal("1 and 3 workers wrote different files")
	}
}

// Two shards merged equal the unsharded sweep, byte for byte.
func TestShardsMergeToUnsharded(t *testing.T) {
	whole := runSmall(t, Options{Workers: 2})
	s0 := runSmall(t, Options{Workers: 2, Shard: Shard{0, 2}})
	s1 := runSmall(t, Options{Workers: 2, Shard: Shard{1, 2}})
	if len(s0.Rows)+len(s1.Rows) != len(whole.Rows) {
		t.Fatalf("shards hold %d + %d rows, whole %d", len(s0.Rows), len(s1.Rows), len(whole.Rows))
	}
	for _, r := range s1.Rows {
		if r.Index%2 != 1 {
			t.Fatalf("shard 1/2 holds config %d", r.Index)
		}
	}
	dir := t.TempDir()
	p0, p1 := filepath.Join(dir, Shard{0, 2}.FileName()), filepath.Join(dir, Shard{1, 2}.FileName())
	if err := WriteFile(p0, s0); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p1, s1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged.parquet")
	merged, err := MergeFiles([]string{p1, p0})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out, merged); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, fileBytes(t, whole)) {
		t.Fatal("merged shards differ from the unsharded sweep")
	}

	// What merge refuses.
	for _, tc := range []struct {
		name  string
		parts []*Results
		want  string
	}{
		{"missing shard", []*Results{s0}, "shard 1/2 missing"},
		{"twice", []*Results{s0, s0}, "given twice"},
		{"other spec", []*Results{s0, withMeta(s1, func(m *Meta) { m.SpecSHA256 = "x" })}, "another spec"},
		{"other trace", []*Results{s0, withMeta(s1, func(m *Meta) { m.TraceSHA256 = "x" })}, "another trace"},
		{"other settings", []*Results{s0, withMeta(s1, func(m *Meta) { m.Settings = "knee_p99_pct=10" })}, "other settings"},
		{"other count", []*Results{s0, withMeta(s1, func(m *Meta) { m.Shard = Shard{1, 3} })}, "one of 2"},
		{"lost row", []*Results{s0, {Meta: s1.Meta, Rows: s1.Rows[1:]}}, "missing"},
		{"foreign row", []*Results{s0, {Meta: s1.Meta, Rows: append(append([]Row(nil), s1.Rows...), s0.Rows[0])}}, "belongs to shard 0/2"},
	} {
		if _, err := Merge(tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func withMeta(r *Results, f func(*Meta)) *Results {
	c := *r
	f(&c.Meta)
	return &c
}

func TestCandidates(t *testing.T) {
	res := runSmall(t, Options{Workers: 2})
	path := filepath.Join(t.TempDir(), "candidates.json")
	if err := WriteCandidates(path, res, 2); err != nil {
		t.Fatal(err)
	}
	var cf CandidateFile
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	if len(cf.Candidates) != 2 || cf.Candidates[0].Rank != 1 || cf.SpecSHA256 != res.Meta.SpecSHA256 {
		t.Fatalf("%+v", cf)
	}
	c := cf.Candidates[0]
	p, err := plan.Parse([]byte(c.Plan))
	if err != nil {
		t.Fatal(err)
	}
	// verify can rebuild the config and replay it at the predicted rate
	if _, err := p.Resolve(model.DefaultCatalog()); err != nil || !(c.RateScale > 0) || c.Predicted.TTFTP99 == nil || c.Predicted.USDPerMOutEst == nil {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestFixedRateScale(t *testing.T) {
	res := runSpec(t, `base = "base.toml"
[sweep]
rate_scale = [0.5, 1000]
`+sloTOML, Options{})
	lo, hi := res.Rows[0], res.Rows[1]
	if lo.RateScale != 0.5 || lo.Scale != 0.5 || lo.Outcome != OutcomeOK || lo.Rank != 1 {
		t.Errorf("low rate: %+v", lo)
	}
	if hi.Scale != 1000 || hi.Outcome != OutcomeSLOViolated || hi.Rank != 0 || math.IsNaN(hi.TTFTP99) {
		t.Errorf("high rate: outcome %s rank %d ttft %v", hi.Outcome, hi.Rank, hi.TTFTP99)
	}
}

func TestReplicasRunAsCluster(t *testing.T) {
	res := runSpec(t, `base = "base.toml"
[sweep]
replicas = [1, 2]
`+sloTOML, Options{})
	one, two := res.Rows[0], res.Rows[1]
	if one.Replicas != 1 || two.Replicas != 2 || one.Outcome != OutcomeOK || two.Outcome != OutcomeOK {
		t.Fatalf("rows: %+v\n%+v", one, two)
	}
	if !(two.Scale > one.Scale) {
		t.Errorf("two replicas hold %g× the trace's rate, one %g×", two.Scale, one.Scale)
	}
	// device-seconds count both replicas, held at least over the arrivals
	span := short(t).Span
	if one.DeviceSeconds < span/one.Scale || two.DeviceSeconds < 2*span/two.Scale {
		t.Errorf("device-seconds %g (1 replica at %g×), %g (2 at %g×), arrivals span %g s", one.DeviceSeconds, one.Scale, two.DeviceSeconds, two.Scale, span)
	}
}

// A results file whose metadata holds a negative count is refused naming
// the key; merging it panicked allocating the configs it covers.
func TestNegativeCountInMetadataIsRefused(t *testing.T) {
	for _, key := range []string{"total_configs", "trace_requests"} {
		path := filepath.Join(t.TempDir(), "r.parquet")
		m := Meta{Shard: Shard{0, 1}, TotalConfigs: 1, TraceRequests: 1}
		if key == "total_configs" {
			m.TotalConfigs = -1
		} else {
			m.TraceRequests = -1
		}
		if err := WriteFile(path, &Results{Meta: m}); err != nil {
			t.Fatal(err)
		}
		_, err := MergeFiles([]string{path})
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s = -1: err = %v, want it named with the file", key, err)
		}
	}
}

// Top orders the ranked rows by rank whatever ranks they hold: rows read
// from a file that left some configs out skip ranks, and placing each row
// at its rank panicked.
func TestTopWithRanksMissing(t *testing.T) {
	rows := []Row{{Index: 0, Rank: 7}, {Index: 1}, {Index: 2, Rank: 3}, {Index: 3, Rank: 5}}
	got := Top(rows, 2)
	if len(got) != 2 || got[0].Index != 2 || got[1].Index != 3 {
		t.Fatalf("Top(2) = %v, want the rows of ranks 3 and 5", got)
	}
	if all := Top(rows, 0); len(all) != 3 || all[2].Rank != 7 {
		t.Fatalf("Top(0) = %v, want 3 rows ending with rank 7", all)
	}
}

// candidates.json names the build, catalog and profile the predictions
// came from, as the results file's settings do.
func TestCandidatesCarrySettings(t *testing.T) {
	res := &Results{Meta: Meta{SpecSHA256: "ab", Settings: "tool_version=v1 catalog_sha256=cd profile_sha256=ef"}, Rows: []Row{{Rank: 1, Label: "a"}}}
	path := filepath.Join(t.TempDir(), "candidates.json")
	if err := WriteCandidates(path, res, 1); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var cf CandidateFile
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	if cf.Settings != res.Meta.Settings {
		t.Errorf("candidates.json settings %q, want the results' %q", cf.Settings, res.Meta.Settings)
	}
}

// A results file names the input trace's files by checksum, as a
// simulated trace and summary.json do, and reads them back.
func TestResultsTraceChecksums(t *testing.T) {
	res := &Results{Meta: Meta{SpecSHA256: "ab", TraceName: "in.csv", TraceChecksums: map[string]string{"in.csv": "sha256:cd"}, Shard: Shard{0, 1}},
		Rows: []Row{rankedRow()}}
	path := filepath.Join(t.TempDir(), "sweep.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got.Meta.TraceChecksums, res.Meta.TraceChecksums) {
		t.Errorf("trace checksums %v, want %v", got.Meta.TraceChecksums, res.Meta.TraceChecksums)
	}
}

// A results file names what else made its trace's requests arrive as they
// did (traces.Workload), empty included, and reads it back; a file written
// before it was recorded reads as unknown (nil).
func TestResultsTraceWorkload(t *testing.T) {
	for _, w := range []map[string]string{{"spread_ns": "1000000000", "slice": "from_ns=0 head=2"}, {}, nil} {
		res := &Results{Meta: Meta{SpecSHA256: "ab", TraceName: "in.csv", TraceChecksums: map[string]string{"in.csv": "sha256:cd"},
			TraceWorkload: w, Shard: Shard{0, 1}}, Rows: []Row{rankedRow()}}
		path := filepath.Join(t.TempDir(), "sweep.parquet")
		if err := WriteFile(path, res); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got.Meta.TraceWorkload, w) || (got.Meta.TraceWorkload == nil) != (w == nil) {
			t.Errorf("trace workload %#v, want %#v", got.Meta.TraceWorkload, w)
		}
	}
}

// A capped candidate's predicted figures are taken at the capped load,
// not at its capacity (the SLO held up to the search's limit):
// candidates.json must say so, as the sweep's note does, so that verify
// and a reader of the file do not take its cost and req/s for those at
// the capacity. A searched candidate carries no such flag.
func TestCandidatesMarkCappedCapacity(t *testing.T) {
	res := &Results{Meta: Meta{SpecSHA256: "ab"}, Rows: []Row{
		{Rank: 1, Label: "capped", Outcome: OutcomeOK, Scale: 8, RateScale: math.NaN(), Note: capacityAtLeast + "search.max_scale 8"},
		{Rank: 2, Label: "searched", Outcome: OutcomeOK, Scale: 2, RateScale: math.NaN()},
	}}
	path := filepath.Join(t.TempDir(), "candidates.json")
	if err := WriteCandidates(path, res, 2); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cf struct {
		Candidates []map[string]any `json:"candidates"`
	}
	if err := json.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	if got := cf.Candidates[0]["capacity_lower_bound"]; got != true {
		t.Errorf("capped candidate's capacity_lower_bound = %v, want true:\n%s", got, b)
	}
	if got, ok := cf.Candidates[1]["capacity_lower_bound"]; ok {
		t.Errorf("searched candidate carries capacity_lower_bound = %v:\n%s", got, b)
	}
}
