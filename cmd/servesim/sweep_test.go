package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

const smallSweep = "../../sim/sweep/testdata/small.toml"

// shortTrace writes the first 200 requests of the Azure conv trace as a
// servesim CSV.
func shortTrace(t *testing.T) string {
	t.Helper()
	in, err := traces.Import("../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "head.csv")
	if _, err := traces.WriteTrace(t.Context(), path, traces.Slice(in, 0, 0, 200)); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimulateSweep(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--top", "3", "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"small.toml", "12 of 12 configs", "skipped 1", "skip_if 1", "rank", "$/1M out (est.)", "tail penalty"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	res, err := sweep.ReadFile(filepath.Join(dir, "sweep.parquet"))
	if err != nil || len(res.Rows) != 12 {
		t.Fatalf("%v", err)
	}
	// verify takes the results file as its candidates too: the same three
	// as candidates.json with --top 3.
	fromJSON, err := readCandidates(filepath.Join(dir, "candidates.json"))
	if err != nil {
		t.Fatal(err)
	}
	fromResults, err := readCandidates(filepath.Join(dir, "sweep.parquet"))
	if err != nil || len(fromResults.Candidates) < 3 {
		t.Fatalf("results as candidates: %v", err)
	}
	fromResults.Candidates = fromResults.Candidates[:3]
	if !reflect.DeepEqual(fromJSON, fromResults) {
		t.Errorf("candidates from the results file differ from candidates.json:\n%+v\n%+v", fromResults, fromJSON)
	}
	// A sweep where nothing meets the SLO ranks nothing: no candidates.
	spec, _ := os.ReadFile(smallSweep)
	strict := filepath.Join(dir, "strict.toml")
	os.WriteFile(strict, bytes.Replace(bytes.Replace(spec, []byte("ttft_p99_ms = 1500"), []byte("ttft_p99_ms = 0.001"), 1),
		[]byte(`base = "../../../cmd/servesim/defaults/4-continuous.toml"`), []byte(`base = "`+filepath.Join(cwd(t), "defaults/4-continuous.toml")+`"`), 1), 0o644)
	strictOut := filepath.Join(dir, "strict")
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", strict, "--out", strictOut); err != nil {
		t.Fatal(err)
	}
	if _, err := readCandidates(filepath.Join(strictOut, "sweep.parquet")); err == nil || !strings.Contains(err.Error(), "no ranked configs") {
		t.Errorf("a sweep that ranked nothing: %v, want no candidates", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "candidates.json")); err != nil {
		t.Error(err)
	}

	// Two shards, merged, give the same file.
	sdir := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", sdir, "--shard", s, "-q"); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(sdir, "merged.parquet")
	if _, err := run(t, "sweep", "merge", "--top", "3", merged,
		filepath.Join(sdir, "sweep-shard-0-of-2.parquet"), filepath.Join(sdir, "sweep-shard-1-of-2.parquet")); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(merged)
	b, _ := os.ReadFile(filepath.Join(dir, "sweep.parquet"))
	if !bytes.Equal(a, b) {
		t.Error("merged shards differ from the unsharded sweep")
	}
	ca, _ := os.ReadFile(filepath.Join(sdir, "candidates.json"))
	cb, _ := os.ReadFile(filepath.Join(dir, "candidates.json"))
	if !bytes.Equal(ca, cb) {
		t.Error("candidates after merge differ from the unsharded sweep's")
	}

	// A sweep written again without --top takes the earlier candidates
	// away with the results they ranked.
	out, err = run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "-q")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "candidates.json")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(out, "removed "+filepath.Join(dir, "candidates.json")) {
		t.Errorf("candidates.json of the earlier sweep: %v, want it removed and said so:\n%s", err, out)
	}
}

func TestSimulateSweepBadSpecWritesNothing(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "bad.toml")
	os.WriteFile(spec, []byte("base = \"x.toml\"\n[sweep]\n\"batch.max_num_seqs\" = {from = 64, to = 8, factor = 2}\n[slo]\nttft_p99_ms = 1\n"), 0o644)
	out := filepath.Join(dir, "res")
	_, err := run(t, "simulate", "--sweep", spec, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "bad.toml") {
		t.Fatalf("err = %v, want the file named", err)
	}
	os.WriteFile(filepath.Join(dir, "x.toml"), mustRead(t, "defaults/4-continuous.toml"), 0o644)
	_, err = run(t, "simulate", "--sweep", spec, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "bad.toml") || !strings.Contains(err.Error(), "batch.max_num_seqs") {
		t.Fatalf("err = %v, want the file and the key", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed sweep created %s", out)
	}
}

func TestSimulateSweepFlagChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--top", "3"}, "--top needs --sweep"},
		{[]string{"simulate", "--sweep", smallSweep, "--config", "x.toml"}, "--config does not combine"},
		{[]string{"simulate", "--sweep", smallSweep, "--shard", "2/2", "--out", "x"}, "shard \"2/2\""},
		{[]string{"simulate", "--sweep", smallSweep, "--shard", "0/2"}, "--shard needs --out"},
		{[]string{"simulate", "--sweep", smallSweep, "--shard", "0/2", "--out", "x", "--top", "2"}, "sweep merge"},
		// Flags the chosen mode would ignore.
		{[]string{"simulate", "--sweep", smallSweep, "--top", "2"}, "--top writes OUT/candidates.json: it needs --out"},
		{[]string{"simulate", "--sweep", smallSweep, "--closed-loop-gap", "50ms"}, "--closed-loop-gap with --sweep needs --session-wait"},
		{[]string{"simulate", "--sweep", smallSweep, "--session-wait", "--closed-loop-gap", "2m"}, "--closed-loop-gap 2m0s: want in"},
		{[]string{"simulate", "--sweep", smallSweep, "--closed-loop", "4"}, "--closed-loop does not combine"},
		{[]string{"simulate", "--closed-loop-gap", "50ms"}, "--closed-loop-gap needs --closed-loop"},
		{[]string{"simulate", "-q"}, "--quiet needs --sweep"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := run(t, "sweep", "merge", "only.parquet"); err == nil {
		t.Error("merge with no shards succeeded")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := defaults.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A config whose KV cache is too small in the catalog but not as the
// profile measured it runs with --profile, on the measured cache, rather
// than being skipped as kv_too_small: at utilization 0.4, Llama-3.1-8B on
// an H100 has 7,677 blocks in the catalog, fewer than one 131,072-token
// sequence needs (8,192); the profile measured 8,400, which that
// utilization has room for beside the weights (8,653).
func TestSimulateSweepProfileKVDecidesTheSkip(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Abs("defaults/4-continuous.toml")
	if err != nil {
		t.Fatal(err)
	}
	spec := writeFile(t, dir, "spec.toml", fmt.Sprintf("base = %q\n[device]\nmax_model_len = 131072\n", base)+
		"[sweep]\n\"device.gpu_memory_utilization\" = [0.4, 0.9]\n[slo]\nttft_p99_ms = 1500\n")
	tr := shortTrace(t)
	rows := func(args ...string) []sweep.Row {
		t.Helper()
		out := filepath.Join(dir, fmt.Sprint(len(args)))
		if _, err := run(t, append([]string{"simulate", "--trace", tr, "--sweep", spec, "--out", out, "-q"}, args...)...); err != nil {
			t.Fatal(err)
		}
		f, err := sweep.ReadFile(filepath.Join(out, "sweep.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return f.Rows
	}
	if r := rows()[0]; r.Outcome != sweep.OutcomeSkipped || r.SkipReason != sweep.SkipKVTooSmall {
		t.Fatalf("utilization 0.4 without the profile: %s %s, want skipped as %s", r.Outcome, r.SkipReason, sweep.SkipKVTooSmall)
	}
	r := rows("--profile", profileMeasuring(t, dir, 8400))[0]
	if r.Outcome == sweep.OutcomeSkipped || r.KVBlocks != 8400 {
		t.Errorf("utilization 0.4 with the profile: %s %s on %d KV blocks, want it run on the profile's 8400", r.Outcome, r.SkipReason, r.KVBlocks)
	}
}

// --profile gives every config of a sweep the calibrated step model, its
// measured KV tokens raise a smaller catalog capacity, and it is recorded in the results' settings; a
// profile of another device is refused.
func TestSimulateSweepProfile(t *testing.T) {
	tr := shortTrace(t)
	prior, withProf := t.TempDir(), t.TempDir()
	if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", prior, "-q"); err != nil {
		t.Fatal(err)
	}
	const prof = "../../calibrate/testdata/profile_v1.json" // H100-SXM-80G, 28,312 KV blocks of 16
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", withProf, "--profile", prof, "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "step model from profile "+prof) {
		t.Errorf("output does not name the profile:\n%s", out)
	}
	a, err := sweep.ReadFile(filepath.Join(prior, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sweep.ReadFile(filepath.Join(withProf, "sweep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// the profile's power fit priced the energy, and the settings say so
	if !strings.Contains(b.Meta.Settings, "power=profile") || strings.Contains(a.Meta.Settings, "power=") {
		t.Errorf("settings: prior %q, profile %q: want power=profile with the profile's power fit", a.Meta.Settings, b.Meta.Settings)
	}
	if !strings.Contains(b.Meta.Settings, "profile_sha256=") || strings.Contains(a.Meta.Settings, "profile_sha256=") {
		t.Errorf("settings: prior %q, profile %q", a.Meta.Settings, b.Meta.Settings)
	}
	changed := 0
	for i, r := range b.Rows {
		if r.Outcome == "skipped" {
			continue
		}
		if want := max(a.Rows[i].KVBlocks, 28312); r.KVBlocks != want {
			t.Errorf("config %d: %d KV blocks, want %d (the catalog's %d raised to the profile's 28312)", r.Index, r.KVBlocks, want, a.Rows[i].KVBlocks)
		}
		if r.Scale != a.Rows[i].Scale || r.TTFTP99 != a.Rows[i].TTFTP99 {
			changed++
		}
	}
	if changed == 0 {
		t.Error("the profile changed no config's results")
	}

	cpu := filepath.Join(t.TempDir(), "cpu.json")
	data, _ := os.ReadFile(prof)
	os.WriteFile(cpu, bytes.Replace(data, []byte(`"H100-SXM-80G"`), []byte(`"cpu"`), 1), 0o644)
	if _, code, err := runCode(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--profile", cpu, "-q"); code != 2 || err == nil ||
		!strings.Contains(err.Error(), `measured on device "cpu", but config 0 (`) || !strings.Contains(err.Error(), ") of "+smallSweep+` runs on "H100-SXM-80G"`) {
		t.Errorf("profile of another device: exit %d, %v\nwant exit 2 naming the config and %s", code, err, smallSweep)
	}
}

func TestSweepMergeChecksArguments(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", s, "-q"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "sweep-shard-0-of-2.parquet"), filepath.Join(dir, "sweep-shard-1-of-2.parquet")
	shard, _ := os.ReadFile(a)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{a, a, b}, "would overwrite the input SHARD"},
		{[]string{filepath.Join(dir, "m.csv"), a, b}, "want a .parquet file"},
		{[]string{filepath.Join(dir, "m.parquet"), a, b, "--top", "3"}, "flags go before the arguments: --top"},
		{[]string{"--top", "-1", filepath.Join(dir, "m.parquet"), a, b}, "--top -1: want ≥ 0"},
	} {
		_, err := run(t, append([]string{"sweep", "merge"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sweep merge %v: err = %v, want %q", c.args, err, c.want)
		}
	}
	if now, _ := os.ReadFile(a); !bytes.Equal(now, shard) {
		t.Error("a refused merge changed its shard")
	}
	if got := testfs.Names(t, dir); len(got) != 2 {
		t.Errorf("refused merges left %v", got)
	}
	for _, args := range [][]string{{"--top", "-1"}, {"--workers", "-2"}} {
		_, err := run(t, append([]string{"simulate", "--trace", tr, "--sweep", smallSweep, "-q"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" "+args[1]+": want ≥ 0") {
			t.Errorf("simulate --sweep %v: err = %v", args, err)
		}
	}
}

func cwd(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The sweep's ranking shows $/1M out as the report and the per-plan
// summary do.
func TestSweepTableFormatsDollarsAsTheReport(t *testing.T) {
	nan := math.NaN()
	rows := []sweep.Row{
		{Label: "a", Outcome: sweep.OutcomeOK, Rank: 1, USDPerMOutEst: 0.73226, USDPerMOutBilled: 99.996, DeviceCount: 1, Scale: 1, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, TailPenalty: nan, KneeScale: nan},
		{Label: "b", Outcome: sweep.OutcomeOK, Rank: 2, USDPerMOutEst: 2e-6, USDPerMOutBilled: 12.345, DeviceCount: 1, Scale: 1, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, TailPenalty: nan, KneeScale: nan},
	}
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 0)
	for _, r := range rows {
		for _, v := range []float64{r.USDPerMOutEst, r.USDPerMOutBilled} {
			if want := numfmt.USD(v); !strings.Contains(out.String(), " "+want+" ") {
				t.Errorf("the table lacks %q for %g, as the report writes it:\n%s", want, v, out.String())
			}
		}
	}
}

// The sweep's ranking shows req/s and goodput tok/s as the report's
// tables do: a slow trace's rate keeps its digits, never "0.00".
func TestSweepTableFormatsRatesAsTheReport(t *testing.T) {
	nan := math.NaN()
	rows := []sweep.Row{
		{Label: "a", Outcome: sweep.OutcomeOK, Rank: 1, ReqPerSec: 0.00515, GoodputOutTokPerSec: 0.42, USDPerMOutEst: 1, DeviceCount: 1, Scale: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
		{Label: "b", Outcome: sweep.OutcomeOK, Rank: 2, ReqPerSec: 0.00494, GoodputOutTokPerSec: 0.37, USDPerMOutEst: 2, DeviceCount: 1, Scale: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
	}
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 0)
	for _, r := range rows {
		for _, want := range []string{numfmt.Fixed(r.ReqPerSec, 2), numfmt.Fixed(r.GoodputOutTokPerSec, 0)} {
			if !strings.Contains(out.String(), " "+want+" ") {
				t.Errorf("the table lacks %q for config %s, as the report writes it:\n%s", want, r.Label, out.String())
			}
		}
	}
}

// A sweep config at another tensor-parallel degree (or precision, or
// model) than the profile measured is warned about once per difference,
// as simulate --profile warns of a plan: the sweep used to discard the
// warning and run every device.count = 2 config on one device's step
// times without a word.
func TestSimulateSweepProfileWarnsOfMismatch(t *testing.T) {
	tr := shortTrace(t)
	const prof = "../../calibrate/testdata/profile_v1.json" // tensor_parallel 1; small.toml sweeps device.count 1 and 2
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--profile", prof, "-q")
	if err != nil {
		t.Fatal(err)
	}
	// Prefixed as every other line a sweep prints.
	want := "sweep: warning: " + prof + " was measured at tensor parallelism 1, the plan 2 devices"
	if n := strings.Count(out, "was measured at tensor parallelism"); n != 1 || !strings.Contains(out, want) {
		t.Errorf("%d warnings %q, want 1:\n%s", n, want, out)
	}
	// The per-config KV lines stay summed up in one.
	if strings.Contains(out, "KV capacity raised to") || !strings.Contains(out, "raised the capacity of") {
		t.Errorf("KV capacity lines:\n%s", out)
	}
}

// An --out that is a file is named as the flag, as simulate without
// --sweep names it, not left to mkdir's words.
func TestSimulateSweepOutNotADirectory(t *testing.T) {
	file := writeFile(t, t.TempDir(), "out", "")
	_, err := run(t, "simulate", "--trace", shortTrace(t), "--sweep", smallSweep, "--out", file, "-q")
	if err == nil || !strings.Contains(err.Error(), "--out: "+file+": want a directory") {
		t.Errorf("err = %v, want one naming --out: %s and what it should be", err, file)
	}
}

// A capacity the engine reported sets a config's KV cache smaller as
// well as larger: the sweep says so, and does not call it the probe's
// tokens raising it.
func TestSimulateSweepProfileSaysTheReportedKV(t *testing.T) {
	tr := shortTrace(t)
	p, err := calibrate.LoadProfile("../../calibrate/testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	// Below the catalog's H100 capacity, at the configs' utilization.
	p.KVReported = &calibrate.ReportedKV{Source: "vllm:cache_config_info", Tokens: 2000 * 16, Blocks: 2000, BlockSize: 16, GPUMemoryUtilization: 0.9}
	prof := filepath.Join(t.TempDir(), "p.json")
	if err := p.Save(prof); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--profile", prof, "-q")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "raised the capacity of") || !strings.Contains(out, "the engine reported") {
		t.Errorf("KV capacity lines:\n%s", out)
	}
}

// A capacity the search never saw the SLO break at (capped at
// search.max_scale, or max_probes ran out while doubling) is a lower
// bound: the table marks its scale so, where a measured capacity stands
// bare.
func TestPrintSweepMarksCappedCapacity(t *testing.T) {
	nan := math.NaN()
	rows := []sweep.Row{
		{Label: "capped", Outcome: sweep.OutcomeOK, Rank: 1, RateScale: nan, Note: "capacity ≥ search.max_scale 8", USDPerMOutEst: 1, DeviceCount: 1, Scale: 8, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
		{Label: "probes", Outcome: sweep.OutcomeOK, Rank: 2, RateScale: nan, Note: "capacity ≥ scale 4: search.max_probes = 3 ran out before the SLO broke", USDPerMOutEst: 2, DeviceCount: 1, Scale: 4, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
		{Label: "measured", Outcome: sweep.OutcomeOK, Rank: 3, RateScale: nan, USDPerMOutEst: 3, DeviceCount: 1, Scale: 2, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
	}
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 0)
	for _, want := range []string{" ≥8 ", " ≥4 ", " 2 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks scale %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "≥2") {
		t.Errorf("a measured capacity is marked as a lower bound:\n%s", out.String())
	}
}

// A capped capacity's cost at the SLO and its tail penalty are taken at
// the capped load: the true capacity is higher, so each is an upper
// bound and reads "≤", as its scale reads "≥"; a searched capacity's
// figures, and the load-free billed cost, stand bare.
func TestPrintSweepMarksCappedCostsAsUpperBounds(t *testing.T) {
	nan := math.NaN()
	rows := []sweep.Row{
		{Label: "capped", Outcome: sweep.OutcomeOK, Rank: 1, RateScale: nan, Note: "capacity ≥ search.max_scale 8", USDPerMOutEst: 1.5, DeviceCount: 1, Scale: 8, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: 7, TailPenalty: 0.25, KneeScale: nan},
		{Label: "measured", Outcome: sweep.OutcomeOK, Rank: 2, RateScale: nan, USDPerMOutEst: 2.5, DeviceCount: 1, Scale: 2, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: 8, TailPenalty: 0.5, KneeScale: nan},
		{Label: "unpriced", Outcome: sweep.OutcomeOK, Rank: 3, RateScale: nan, Note: "capacity ≥ search.max_scale 8", USDPerMOutEst: nan, DeviceCount: 1, Scale: 8, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
	}
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 0)
	lines := strings.Split(out.String(), "\n")
	line := func(label string) string {
		for _, l := range lines {
			if strings.Contains(l, " "+label+" ") {
				return l
			}
		}
		t.Fatalf("no %s row:\n%s", label, out.String())
		return ""
	}
	capped := line("capped")
	for _, want := range []string{" ≤$1.50 ", " ≤+25% ", " $7.00 "} {
		if !strings.Contains(capped, want) {
			t.Errorf("the capped row lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(capped, "≤$7") {
		t.Errorf("the billed cost, per token whatever the load, is marked as a bound:\n%s", out.String())
	}
	if l := line("measured"); strings.Contains(l, "≤") {
		t.Errorf("a measured capacity's costs are marked as upper bounds:\n%s", out.String())
	}
	if l := line("unpriced"); strings.Contains(l, "≤") {
		t.Errorf("an absent figure (—) is marked:\n%s", out.String())
	}
}

// A tail penalty reads as the report's shares do, signed: one a fraction
// of a percent below 0 keeps its digits rather than reading "-0%".
func TestPrintSweepTailPenaltyKeepsSmallFigures(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		pen  float64
		want string
	}{
		{-0.004, " -0.4% "},
		{0.002, " +0.2% "},
		{0.34, " +34% "},
		{0, " +0% "},
	} {
		rows := []sweep.Row{{Label: "a", Outcome: sweep.OutcomeOK, Rank: 1, RateScale: nan, USDPerMOutEst: 1, DeviceCount: 1, Scale: 2,
			ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: c.pen, KneeScale: nan}}
		var out strings.Builder
		printSweep(&out, &sweep.Results{Rows: rows}, 0)
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("tail penalty %v: want %q in:\n%s", c.pen, c.want, out.String())
		}
	}
}

// A capped capacity's req/s and goodput are taken at the capped load:
// the true capacity carries more, so each is a lower bound and reads
// "≥", as its scale does; a searched capacity's read bare, and an absent
// figure (—) is not marked.
func TestPrintSweepMarksCappedThroughputAsLowerBounds(t *testing.T) {
	nan := math.NaN()
	rows := []sweep.Row{
		{Label: "capped", Outcome: sweep.OutcomeOK, Rank: 1, RateScale: nan, Note: "capacity ≥ search.max_scale 8", USDPerMOutEst: 1.5, DeviceCount: 1, Scale: 8, ReqPerSec: 3.25, GoodputOutTokPerSec: 412, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
		{Label: "measured", Outcome: sweep.OutcomeOK, Rank: 2, RateScale: nan, USDPerMOutEst: 2.5, DeviceCount: 1, Scale: 2, ReqPerSec: 1.5, GoodputOutTokPerSec: 97, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
		{Label: "blank", Outcome: sweep.OutcomeOK, Rank: 3, RateScale: nan, Note: "capacity ≥ search.max_scale 8", USDPerMOutEst: nan, DeviceCount: 1, Scale: 8, ReqPerSec: nan, GoodputOutTokPerSec: nan, TTFTP99: 1, TPOTP99: 1, E2EP99: 1, USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan},
	}
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 0)
	line := func(label string) string {
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, " "+label+" ") {
				return l
			}
		}
		t.Fatalf("no %s row:\n%s", label, out.String())
		return ""
	}
	for _, want := range []string{" ≥3.25 ", " ≥412 "} {
		if !strings.Contains(line("capped"), want) {
			t.Errorf("the capped row lacks %q:\n%s", want, out.String())
		}
	}
	if l := line("measured"); strings.Contains(l, "≥") {
		t.Errorf("a measured capacity's throughput is marked as a lower bound:\n%s", out.String())
	}
	if l := line("blank"); strings.Contains(l, "≥—") {
		t.Errorf("an absent figure (—) is marked:\n%s", out.String())
	}
}
