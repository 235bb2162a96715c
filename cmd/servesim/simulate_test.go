package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/numfmt"
	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
	"github.com/urfave/cli/v2"
)

// run runs the CLI with args and returns its standard output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	// A usage error (cli.Exit) must come back as an error, not end the
	// test binary.
	saved := cli.OsExiter
	cli.OsExiter = func(int) {}
	defer func() { cli.OsExiter = saved }()
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	err := app.RunContext(context.Background(), append([]string{"servesim"}, args...))
	return out.String(), err
}

func TestSimulateEmbeddedDefault(t *testing.T) {
	out, err := run(t, "simulate")
	if err != nil {
		t.Fatal(err)
	}
	// One prompt of the trace (14,050 tokens) exceeds max_model_len 8192
	// and is rejected, as vLLM would.
	for _, want := range []string{"serial", "fixed", "token_budget", "continuous", "19365/19366", "1 rejected", "roofline prior", "$/1M out"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimulateWritesResults(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.csv")
	// The second request finishes first; rows still go in arrival order.
	os.WriteFile(src, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,200\n1000000,200,20\n"), 0o644)
	cfg := filepath.Join(dir, "cont.toml")
	data, _ := defaults.ReadFile("defaults/4-continuous.toml")
	os.WriteFile(cfg, data, 0o644)
	out := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", out, "--decisions", filepath.Join(dir, "d.jsonl")); err != nil {
		t.Fatal(err)
	}
	meta, rows, err := traces.ReadAll(filepath.Join(out, "cont.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Source != "simulated" || meta.Model != "Llama-3.1-8B" || !strings.Contains(meta.Extra["plan"], "continuous") {
		t.Errorf("meta = %+v", meta)
	}
	if len(rows) != 2 || rows[0].Arrival != 0 || rows[1].LastToken >= rows[0].LastToken {
		t.Fatalf("%d rows, want 2, the first arriving first and finishing last", len(rows))
	}
	if _, err := run(t, "trace", "stats", filepath.Join(out, "cont.parquet")); err != nil {
		t.Errorf("trace stats on the simulated trace: %v", err)
	}
	for _, r := range rows {
		ttft, ok := r.TTFT()
		if !ok || ttft <= 0 || r.UsageOutput != r.OutputTokens {
			t.Errorf("row %s: ttft %d ok %v usage %d", r.ID, ttft, ok, r.UsageOutput)
		}
	}
	var summary []map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &summary); err != nil || len(summary) != 1 {
		t.Fatalf("summary.json: %v %s", err, b)
	}
	if d, _ := os.ReadFile(filepath.Join(dir, "d.jsonl")); bytes.Count(d, []byte("\n")) < 2 {
		t.Errorf("decision log has %d lines", bytes.Count(d, []byte("\n")))
	}
}

func TestSimulateBadConfigWritesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.toml")
	data, _ := defaults.ReadFile("defaults/4-continuous.toml")
	os.WriteFile(cfg, bytes.Replace(data, []byte("max_num_seqs"), []byte("max_num_seq"), 1), 0o644)
	out := filepath.Join(dir, "res")
	_, err := run(t, "simulate", "--config", cfg, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "bad.toml") || !strings.Contains(err.Error(), "max_num_seq") {
		t.Fatalf("err = %v, want the file and the unknown key", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run created %s", out)
	}
}

// A value the catalog or the simulator refuses (an unknown device, a
// context past the model's) is named by the plan's file, as a bad key is,
// not by the plan's label: two directories may hold plans of one name.
func TestSimulateBadValueNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	sub := filepath.Join(dir, "plans")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, key string }{
		{`model = "H100-SXM-80G"`, `model = "Z100"`, "device.model"},
		{"max_model_len = 8192", "max_model_len = 999999", "device.max_model_len"},
		{"max_num_seqs = 256", "max_num_seqs = 10000", ""},
	} {
		cfg := basePlan(t, sub, "p.toml", c.old, c.new)
		_, err := run(t, "simulate", "--trace", tr, "--config", cfg)
		if err == nil || !strings.HasPrefix(err.Error(), cfg+": ") || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: err = %v, want one starting with %s and naming %q", c.new, err, cfg, c.key)
		}
	}
}

// A static plan reserves prompt + max_new_tokens per request, but never
// past max_model_len, which the KV cache holds: a max_new_tokens larger
// than the cache runs and serves every request. It was refused.
func TestSimulateRunsAStaticPlanOfMaxNewTokensPastTheCache(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	data, _ := defaults.ReadFile("defaults/2-fixed.toml")
	cfg := writeFile(t, dir, "fixed.toml", strings.Replace(string(data), "max_new_tokens = 1024", "max_new_tokens = 2000000", 1))
	out, err := run(t, "simulate", "--trace", tr, "--config", cfg)
	if err != nil || !strings.Contains(out, " 0 rejected") || !strings.Contains(out, "outcome: ok") {
		t.Fatalf("err = %v, want the plan run, none rejected\n%s", err, out)
	}
}

func TestSimulateFailedRunLeavesNoDecisions(t *testing.T) {
	dir := t.TempDir()
	// Row 3 goes back in time: the run fails midway, after decisions were logged.
	tr := writeFile(t, dir, "ooo.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,20\n5000000,100,20\n10,100,20\n")
	cfg := basePlan(t, dir, "p.toml")
	d := filepath.Join(dir, "d.jsonl")
	if _, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--decisions", d); err == nil || !strings.Contains(err.Error(), "back in time") {
		t.Fatalf("err = %v, want the trace error", err)
	}
	if got := testfs.Names(t, dir); len(got) != 2 {
		t.Errorf("a failed run left %v, want only the trace and plan", got)
	}
	// A good run writes the log, readable like the traces (0644).
	good := writeFile(t, dir, "good.csv", smallCSV)
	if _, err := run(t, "simulate", "--trace", good, "--config", cfg, "--decisions", d, "--out", filepath.Join(dir, "res")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d, filepath.Join(dir, "res", "summary.json")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v, want 0644", p, err, fi.Mode())
		}
	}
}

func TestSimulateOutputsMustNotOverwriteInputs(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "p.csv", smallCSV)
	cfg := basePlan(t, dir, "p.toml")
	pq := filepath.Join(dir, "p.parquet")
	if _, err := run(t, "trace", "convert", tr, pq); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate", "--trace", tr, "--config", cfg, "--decisions", dir + "/./p.csv"},
		{"simulate", "--trace", tr, "--config", cfg, "--decisions", cfg},
		// --out DIR writes DIR/p.parquet, here the trace itself.
		{"simulate", "--trace", pq, "--config", cfg, "--out", dir},
	} {
		before := map[string][]byte{}
		for _, n := range testfs.Names(t, dir) {
			before[n], _ = os.ReadFile(filepath.Join(dir, n))
		}
		_, _, err := runCode(t, args...)
		if err == nil || !strings.Contains(err.Error(), "would overwrite the input") {
			t.Errorf("%v: err = %v, want a refusal", args, err)
		}
		for n, b := range before {
			if now, _ := os.ReadFile(filepath.Join(dir, n)); !bytes.Equal(now, b) {
				t.Errorf("%v changed %s", args, n)
			}
		}
		if got := testfs.Names(t, dir); len(got) != len(before) {
			t.Errorf("%v left %v", args, got)
		}
	}
}

// A bad plan anywhere in the list fails before any plan writes output.
func TestSimulateChecksEveryPlanFirst(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	good := basePlan(t, dir, "good.toml")
	bad := basePlan(t, dir, "zbad.toml", "max_num_seqs = 256", "max_num_seqs = 10000")
	out := filepath.Join(dir, "res")
	_, err := run(t, "simulate", "--trace", tr, "--config", good, "--config", bad, "--out", out, "--decisions", filepath.Join(dir, "d.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "zbad") {
		t.Fatalf("err = %v, want one naming zbad", err)
	}
	if got := testfs.Names(t, dir); len(got) != 3 {
		t.Errorf("a refused run left %v", got)
	}
	// A trace that cannot be read fails before --out is created.
	if _, err := run(t, "simulate", "--trace", filepath.Join(dir, "nope.csv"), "--config", good, "--out", out); err == nil {
		t.Error("missing trace: no error")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run created %s", out)
	}
}

// What was not measured prints as "—", never as a zero; the JSON keeps
// its shape, with N = 0.
func TestSimulateUnmeasuredIsEmpty(t *testing.T) {
	dir := t.TempDir()
	cfg := basePlan(t, dir, "p.toml")
	empty := writeFile(t, dir, "empty.csv", "arrival_ns,prompt_tokens,output_tokens\n")
	out, err := run(t, "simulate", "--trace", empty, "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"0µs", "$0.000 per"} {
		if strings.Contains(out, bad) {
			t.Errorf("an empty trace prints %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"0/0   —          —         —         —           0             0         —\n",
		"TTFT p50/p99 —/—", "E2E p99 —", "— per 1M output tokens, — per 1M total tokens"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	one := writeFile(t, dir, "one.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,1\n1000000,100,1\n")
	if out, err = run(t, "simulate", "--trace", one, "--config", cfg); err != nil || !strings.Contains(out, "TPOT p50/p99 —/—") || strings.Contains(out, "TTFT p50/p99 —") {
		t.Errorf("one-token outputs: %v\n%s", err, out)
	}
	js, err := run(t, "simulate", "--trace", empty, "--config", cfg, "--json")
	var res []plan.Result
	if err != nil || json.Unmarshal([]byte(js), &res) != nil || len(res) != 1 || res[0].Summary.TTFT.N != 0 || !strings.Contains(js, `"N": 0`) {
		t.Errorf("--json: %v\n%s", err, js)
	}
	// No tokens, no cost per token: null, as the sweep writes it, not $0.
	for _, want := range []string{`"PerMOutputUSD": null`, `"PerMTotalUSD": null`} {
		if !strings.Contains(js, want) {
			t.Errorf("--json lacks %s:\n%s", want, js)
		}
	}
}

func TestSimulatePrintsPrefixHitRate(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "pre.csv")
	if _, err := run(t, "trace", "synth", "--requests", "30", "--rate", "10", "--prompt", "fixed:100", "--output", "fixed:4",
		"--prefix-groups", "2", "--prefix-tokens", "64", "--block-size", "16", tr); err != nil {
		t.Fatal(err)
	}
	on := basePlan(t, dir, "on.toml", "prefix_caching = false", "prefix_caching = true")
	off := basePlan(t, dir, "off.toml")
	out, err := run(t, "simulate", "--trace", tr, "--config", on, "--config", off, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res []plan.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res[0].Summary.PrefixLookups == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	s := res[0].Summary
	want := fmt.Sprintf("prefix cache: %.1f%% of prompt blocks hit (%d of %d looked up)", 100*s.PrefixHitRate, s.PrefixHits, s.PrefixLookups)
	if out, err = run(t, "simulate", "--trace", tr, "--config", on, "--config", off); err != nil || strings.Count(out, "prefix cache:") != 1 || !strings.Contains(out, want) {
		t.Errorf("want one %q (only the plan with prefix caching): %v\n%s", want, err, out)
	}
}

// A run of several plans publishes all its outputs or none: interrupted
// while the second plan runs, it leaves neither the first plan's trace
// nor a half set beside an earlier run's files, which stay as they were.
func TestSimulateInterruptedRunPublishesNothing(t *testing.T) {
	dir := t.TempDir()
	first := basePlan(t, dir, "a.toml")
	second := basePlan(t, dir, "b.toml", "max_num_seqs = 256", "max_num_seqs = 128")
	out := filepath.Join(dir, "res")
	os.Mkdir(out, 0o755)
	old := writeFile(t, out, "summary.json", "[] (an earlier run's)")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Cancel once the second plan has begun writing.
		for ctx.Err() == nil {
			if m, _ := filepath.Glob(filepath.Join(out, ".b.*")); len(m) > 0 {
				cancel()
				return
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	app := newApp()
	var buf bytes.Buffer
	app.Writer, app.ErrWriter = &buf, &buf
	err := app.RunContext(ctx, []string{"servesim", "simulate", "--config", first, "--config", second, "--out", out,
		"--decisions", filepath.Join(out, "d.jsonl")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the run interrupted in plan b", err)
	}
	if got := testfs.Names(t, out); len(got) != 1 || got[0] != "summary.json" {
		t.Errorf("the interrupted run left %v, want only the earlier summary.json", got)
	}
	if b, _ := os.ReadFile(old); string(b) != "[] (an earlier run's)" {
		t.Errorf("the earlier summary.json became %q", b)
	}
	// Uninterrupted, the same run publishes every file and no staged one.
	if _, err := run(t, "simulate", "--config", first, "--config", second, "--out", out, "--decisions", filepath.Join(out, "d.jsonl")); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.parquet", "b.parquet", "d-a.jsonl", "d-b.jsonl", "summary.json"}
	if got := testfs.Names(t, out); !slices.Equal(got, want) {
		t.Errorf("the run left %v, want %v", got, want)
	}
}

// A simulated trace's metadata holds the run's step model and closed loop,
// and none of the engine a live input was recorded on.
func TestSimulateMetaIsTheSimulatedRun(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "live.parquet")
	w, err := traces.Create(src, traces.Meta{Source: "live", Model: "m", Engine: "vllm 0.8", EngineArgs: "--max-num-seqs 8",
		Extra: map[string]string{"replay.arrival": "open", "replay.concurrency": "0", "seed": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []int32{100, 200} {
		var r traces.Request
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e6, p, 20
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := basePlan(t, dir, "cont.toml")
	out := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", out, "--closed-loop", "2"); err != nil {
		t.Fatal(err)
	}
	meta, _, err := traces.ReadAll(filepath.Join(out, "cont.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Engine != "" || meta.EngineArgs != "" {
		t.Errorf("engine %q, engine_args %q: the simulated run ran no engine", meta.Engine, meta.EngineArgs)
	}
	if meta.Extra["input_engine"] != "vllm 0.8" || meta.Extra["input_engine_args"] != "--max-num-seqs 8" {
		t.Errorf("input's engine not kept as the input's: %v", meta.Extra)
	}
	if _, ok := meta.Extra["replay.arrival"]; ok || meta.Extra["input_replay.arrival"] != "open" {
		t.Errorf("the recording's settings are not set apart as the input's: %v", meta.Extra)
	}
	if meta.Extra["seed"] != "7" {
		t.Errorf("the input's own keys are lost: %v", meta.Extra)
	}
	if !strings.Contains(meta.Extra["step_model"], "roofline prior") {
		t.Errorf("step_model = %q, want the roofline prior", meta.Extra["step_model"])
	}
	if meta.Extra["closed_loop"] != "2" || meta.Extra["closed_loop_gap"] != "1ms" {
		t.Errorf("closed_loop = %q, closed_loop_gap = %q, want 2 and 1ms", meta.Extra["closed_loop"], meta.Extra["closed_loop_gap"])
	}
	// Simulated again in open loop, the trace no longer says closed loop.
	out2 := filepath.Join(dir, "res2")
	if _, err := run(t, "simulate", "--trace", filepath.Join(out, "cont.parquet"), "--config", cfg, "--out", out2); err != nil {
		t.Fatal(err)
	}
	if meta, _, err = traces.ReadAll(filepath.Join(out2, "cont.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, ok := meta.Extra["closed_loop"]; ok {
		t.Errorf("an open-loop run's trace says closed_loop = %q", meta.Extra["closed_loop"])
	}
}

// A ShareGPT file has no arrival times: simulate says how to give it some.
func TestSimulateShareGPTSaysImportAtARate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "share.json")
	if err := os.WriteFile(path, []byte(`[{"id":"a","conversations":[{"from":"human","value":"hi"},{"from":"gpt","value":"hello"}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "simulate", "--trace", path)
	if err == nil || !strings.Contains(err.Error(), "trace import --format sharegpt --rate R") {
		t.Errorf("err = %v, want it to say how to import the file at a rate", err)
	}
}

// The summary shows dollars as the report does, so that the same figure
// reads the same in both: whole dollars from $100, cents from $1, four
// decimals below.
func TestSimulateSummaryFormatsDollarsAsTheReport(t *testing.T) {
	p, err := plan.Load(filepath.Join("defaults", "4-continuous.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []model.CostBreakdown{
		{HardwareUSD: 123.456, EnergyUSD: 1.23456, PerMOutputUSD: 0.5, PerMTotalUSD: 0.04321, HasBilled: true, BilledPerMOutputUSD: 12.345},
		{HardwareUSD: 0.99996, EnergyUSD: 99.996, PerMOutputUSD: 1234.5, PerMTotalUSD: 2e-6, HasBilled: true, BilledPerMOutputUSD: 0.1},
	} {
		var out strings.Builder
		printResults(&out, []*plan.Result{{Name: "p", Plan: p, Summary: &sim.Summary{InputTokens: 10, OutputTokens: 10}, Cost: c}})
		usd := numfmt.USD
		for _, want := range []string{
			"  " + usd(c.PerMOutputUSD) + "\n",
			"hardware:     " + usd(c.HardwareUSD) + " (",
			"energy: " + usd(c.EnergyUSD) + " (",
			": " + usd(c.PerMOutputUSD) + " per 1M output tokens, " + usd(c.PerMTotalUSD) + " per 1M total tokens\n",
			"(billed: API per-token prices): " + usd(c.BilledPerMOutputUSD) + " per 1M output tokens\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%+v: output lacks %q, as the report writes it:\n%s", c, want, out.String())
			}
		}
	}
}

// A run in which nothing ran (its one request over max_model_len) has no
// window to divide by: its rates are printed as unmeasured, not as 0 tok/s
// and a device busy 0% of no time.
func TestSimulateNothingRanPrintsNoRates(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "rej.csv", "id,arrival_ns,prompt_tokens,output_tokens\nr,0,9000,10\n")
	out, err := run(t, "simulate", "--trace", tr, "--config", filepath.Join("defaults", "1-serial.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "batching:     — (no time elapsed: nothing ran)") || strings.Contains(out, "0 output tok/s") {
		t.Errorf("want the batching line unmeasured:\n%s", out)
	}
}

// The KV mean of a run over no time was not measured either: the memory
// line prints it as "—", not as a mean of 0% in use.
func TestSimulateNothingRanPrintsNoKVMean(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "rej.csv", "id,arrival_ns,prompt_tokens,output_tokens\nr,0,9000,10\n")
	out, err := run(t, "simulate", "--trace", tr, "--config", filepath.Join("defaults", "1-serial.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "KV blocks, mean — / max 0% used,") {
		t.Errorf("want the KV mean unmeasured:\n%s", out)
	}
}

// Two outputs of one run naming the same file are refused: the one
// renamed into place last replaced the other, which was lost unsaid.
func TestSimulateOutputsMustNotOverwriteEachOther(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	cfg := basePlan(t, dir, "p.toml")
	out := filepath.Join(dir, "res")
	for _, decisions := range []string{filepath.Join(out, "p.parquet"), filepath.Join(out, "summary.json")} {
		_, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--out", out, "--decisions", decisions)
		if err == nil || !strings.Contains(err.Error(), "--decisions") || !strings.Contains(err.Error(), "--out") {
			t.Errorf("--decisions %s: err = %v, want a refusal naming --decisions and --out", decisions, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--decisions %s: a refused run created %s", decisions, out)
		}
	}
}

// An --out that cannot be a directory is named by its flag.
func TestSimulateOutNotADirectoryNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	cfg := basePlan(t, dir, "p.toml")
	file := writeFile(t, dir, "res", "")
	_, err := run(t, "simulate", "--trace", tr, "--config", cfg, "--out", file)
	if err == nil || !strings.Contains(err.Error(), "--out: "+file) {
		t.Errorf("err = %v, want one naming --out: %s", err, file)
	}
}
