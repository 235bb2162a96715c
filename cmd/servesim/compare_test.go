package main

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
	"github.com/urfave/cli/v2"
)

// liveTrace writes a hand-made live trace: n requests a second apart, each
// with the given TTFT and E2E (ms) and 11 output tokens; the last failed
// requests fail, and one warm-up request is slower than everything.
func liveTrace(t *testing.T, path string, n, failed int, ttftMs, e2eMs int64) {
	t.Helper()
	meta := traces.Meta{Source: "live", Device: "2× H100", BatchPolicy: "continuous seqs=64"}
	var reqs []*traces.Request
	add := func(i int, warm, fail bool) {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens, r.Warmup = "r"+strings.Repeat("x", i%3), int64(i)*1e9, 100, 11, warm
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = r.Arrival, r.Arrival, 200
		if fail {
			r.Error, r.HTTPStatus = "HTTP 500", 500
		} else {
			scale := int64(1)
			if warm {
				scale = 100
			}
			r.FirstToken, r.LastToken = r.Arrival+ttftMs*1e6*scale, r.Arrival+e2eMs*1e6*scale
			r.UsagePrompt, r.UsageOutput = 100, 11
		}
		reqs = append(reqs, r)
	}
	add(0, true, false)
	for i := 1; i <= n; i++ {
		add(i, false, i > n-failed)
	}
	if err := traces.WriteAll(path, meta, reqs); err != nil {
		t.Fatal(err)
	}
}

// compare runs "servesim compare" and returns its output and exit code.
func compare(t *testing.T, args ...string) (string, int) {
	t.Helper()
	saved := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = saved }()
	out, err := run(t, append([]string{"compare"}, args...)...)
	var ec cli.ExitCoder
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &ec):
		return out, ec.ExitCode()
	}
	t.Fatalf("compare: %v\n%s", err, out)
	return "", 0
}

func TestCompareTraces(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.parquet")
	same := filepath.Join(dir, "same.jsonl")
	slow := filepath.Join(dir, "slow.csv")
	fast := filepath.Join(dir, "fast.parquet")
	flaky := filepath.Join(dir, "flaky.parquet")
	liveTrace(t, base, 100, 0, 200, 1200)
	liveTrace(t, same, 100, 0, 200, 1200)
	liveTrace(t, slow, 100, 0, 240, 1200) // P99 TTFT +20%
	liveTrace(t, fast, 100, 0, 150, 1000) // better everywhere
	liveTrace(t, flaky, 100, 5, 200, 1200)

	out, code := compare(t, base, same)
	if code != 0 || !strings.Contains(out, "no regression beyond 10%") || strings.Contains(out, "REGRESSION") {
		t.Errorf("equal runs: exit %d\n%s", code, out)
	}
	// the warm-up request (100× slower) must not count
	if !strings.Contains(out, "200.0ms") && !strings.Contains(out, "200.0 ms") {
		t.Errorf("P99 TTFT of the base should be 200 ms:\n%s", out)
	}
	out, code = compare(t, base, slow)
	if code != exitRegression || !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "+20.0%") {
		t.Errorf("slower TTFT: exit %d\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "REGRESSION") && !strings.Contains(line, "TTFT") {
			t.Errorf("only TTFT regressed, but: %s", line)
		}
	}
	// a looser threshold, given after the positionals, lets it pass
	if out, code = compare(t, base, slow, "--threshold", "25%"); code != 0 {
		t.Errorf("--threshold 25%%: exit %d\n%s", code, out)
	}
	out, code = compare(t, base, fast)
	if code != 0 || strings.Contains(out, "REGRESSION") || !strings.Contains(out, "better") {
		t.Errorf("improvement flagged: exit %d\n%s", code, out)
	}
	// the reverse direction is a regression
	if out, code = compare(t, fast, base); code != exitRegression {
		t.Errorf("reverse of an improvement: exit %d\n%s", code, out)
	}
	out, code = compare(t, base, flaky)
	if code != exitRegression || !strings.Contains(out, "95 completed, 5 failed") {
		t.Errorf("failures: exit %d\n%s", code, out)
	}
}

func TestCompareSimulateAndSweep(t *testing.T) {
	dir := t.TempDir()
	trace := sliceCSV(t, "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", dir, 300)
	sim := filepath.Join(dir, "sim")
	if _, err := run(t, "simulate", "--trace", trace, "--out", sim); err != nil {
		t.Fatal(err)
	}
	// four plans: one must be named
	if _, err := run(t, "compare", sim, sim); err == nil || !strings.Contains(err.Error(), "name one") {
		t.Errorf("ambiguous input: %v", err)
	}
	out, code := compare(t, sim+"#continuous", sim+"#continuous")
	if code != 0 || !strings.Contains(out, "$/1M output (estimated)") {
		t.Errorf("same plan: exit %d\n%s", code, out)
	}
	if out, code = compare(t, "--a", "continuous", "--b", "serial", sim, sim); code != exitRegression {
		t.Errorf("continuous → serial should regress: exit %d\n%s", code, out)
	}
	// the plan's own trace compares with its summary
	if out, code = compare(t, filepath.Join(sim, "continuous.parquet"), filepath.Join(sim, "continuous.parquet")); code != 0 {
		t.Errorf("trace vs itself: exit %d\n%s", code, out)
	}
	sw := filepath.Join(dir, "sweep.parquet")
	fakeSweep(t, sw)
	if out, code = compare(t, sw+"#rank=1", sw+"#rank=3"); code != exitRegression {
		t.Errorf("rank 1 → rank 3 should regress on cost: exit %d\n%s", code, out)
	}
	if out, code = compare(t, sw+"#rank=3", sw+"#rank=1"); code != 0 {
		t.Errorf("rank 3 → rank 1: exit %d\n%s", code, out)
	}
}

func TestParseThresholdRefusesNonFinite(t *testing.T) {
	for _, bad := range []string{"nan", "NaN%", "inf", "+Inf%", "-5%", "x"} {
		if v, err := parseThreshold(bad); err == nil {
			t.Errorf("parseThreshold(%q) = %v, want an error", bad, v)
		}
	}
	if v, err := parseThreshold("2.5%"); err != nil || v != 0.025 {
		t.Errorf("parseThreshold(2.5%%) = %v, %v", v, err)
	}
}

// noisyLiveTrace writes a measured trace (source: live, or proxy for a
// capture) of n requests whose TTFTs are drawn
// from an exponential distribution of mean 200 ms × scale (seeded).
func noisyLiveTrace(t *testing.T, path, source string, seed uint64, n int, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	var reqs []*traces.Request
	for i := range n {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = strconv.Itoa(i), int64(i)*1e9, 100, 11
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = r.Arrival, r.Arrival, 200
		r.FirstToken = r.Arrival + int64(scale*200e6*rng.ExpFloat64())
		r.LastToken = r.FirstToken + 1e9
		r.UsagePrompt, r.UsageOutput = 100, 11
		reqs = append(reqs, r)
	}
	if err := traces.WriteAll(path, traces.Meta{Source: source}, reqs); err != nil {
		t.Fatal(err)
	}
}

// Two live runs of one engine differ by chance; compare flags only what
// chance does not explain. A proxy's capture is measured traffic too.
func TestCompareLiveNoise(t *testing.T) {
	for _, source := range []string{"live", "proxy"} {
		t.Run(source, func(t *testing.T) { testCompareLiveNoise(t, source) })
	}
}

func testCompareLiveNoise(t *testing.T, source string) {
	dir := t.TempDir()
	a, same, slow := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "same.parquet"), filepath.Join(dir, "slow.parquet")
	noisyLiveTrace(t, a, source, 1, 1000, 1)
	noisyLiveTrace(t, same, source, 5, 1000, 1)
	noisyLiveTrace(t, slow, source, 3, 1000, 1.5)
	out, code := compare(t, a, same)
	line := lineWith(out, "P99 TTFT")
	change, _, _ := strings.Cut(line[strings.Index(line, "%")-6:], "%") // the first percentage: the change
	rel, err := strconv.ParseFloat(strings.TrimSpace(change), 64)
	if err != nil || rel < 10 {
		t.Fatalf("the samples' P99 TTFTs should differ by over 10%% by chance (%v):\n%s", err, out)
	}
	if code != 0 || !strings.Contains(line, "within noise") || strings.Contains(out, "REGRESSION") {
		t.Errorf("one distribution, two samples: exit %d, want 0 with P99 TTFT within noise\n%s", code, out)
	}
	out, code = compare(t, a, slow)
	if line := lineWith(out, "P99 TTFT"); code != exitRegression || !strings.Contains(line, "REGRESSION") {
		t.Errorf("TTFTs 50%% slower: exit %d, want %d with P99 TTFT flagged\n%s", code, exitRegression, out)
	}
}

func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// --slo adds goodput, gated like throughput; without it there is no row.
func TestCompareGoodput(t *testing.T) {
	dir := t.TempDir()
	base, slow := filepath.Join(dir, "base.parquet"), filepath.Join(dir, "slow.parquet")
	slowOK := filepath.Join(dir, "slow-ok.parquet")
	liveTrace(t, base, 100, 0, 200, 1200)
	liveTrace(t, slow, 100, 10, 240, 1200) // TTFT 240 ms, and 10 failures
	liveTrace(t, slowOK, 100, 0, 240, 1200)

	out, code := compare(t, base, slowOK, "--threshold", "25%")
	if code != 0 || strings.Contains(out, "goodput") {
		t.Errorf("no SLO: exit %d, want 0 and no goodput row\n%s", code, out)
	}
	out, code = compare(t, base, slow, "--threshold", "25%", "--slo", "ttft=220ms")
	line := lineWith(out, "goodput (req/s)")
	if code != exitRegression || !strings.Contains(line, "REGRESSION") || !strings.Contains(line, "-100.0%") {
		t.Errorf("every TTFT over the limit: exit %d, want goodput −100%% flagged\n%s", code, out)
	}
	if !strings.Contains(out, "within ttft=220ms A: 100 of 100; B: 0 of 100") {
		t.Errorf("want the counts within the SLO:\n%s", out)
	}
	// A limit both meet: goodput is each run's successes a second.
	out, code = compare(t, base, slowOK, "--threshold", "25%", "--slo", "ttft=300ms,e2e=2s")
	if line := lineWith(out, "goodput (req/s)"); code != 0 || !strings.Contains(strings.Join(strings.Fields(line), " "), "goodput (req/s) 1.00 1.00 ") {
		t.Errorf("ttft=300ms: exit %d, want goodput 1.00 req/s in both\n%s", code, out)
	}
	for _, bad := range []string{"--slo=", "--slo=ttft=fast"} {
		if _, err := run(t, "compare", base, slow, bad); err == nil || !strings.Contains(err.Error(), "slo") {
			t.Errorf("%s: %v, want an error naming the SLO", bad, err)
		}
	}
}

// A run named twice, by PATH#NAME and by --a, must be named alike.
func TestCompareConflictingSelectors(t *testing.T) {
	dir := t.TempDir()
	trace := sliceCSV(t, "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", dir, 50)
	sim := filepath.Join(dir, "sim")
	if _, err := run(t, "simulate", "--trace", trace, "--out", sim); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "compare", "--a", "serial", sim+"#continuous", sim+"#continuous"); err == nil || !strings.Contains(err.Error(), "want one") {
		t.Errorf("#continuous and --a serial: %v, want an error", err)
	}
	if out, code := compare(t, "--a", "continuous", sim+"#continuous", sim+"#continuous"); code != 0 {
		t.Errorf("the same name twice: exit %d\n%s", code, out)
	}
}
