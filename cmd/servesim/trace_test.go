package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// The acceptance check of the trace store: import the real Azure conv trace
// and read its stats back as JSON.
func TestTraceImportStatsAzureConv(t *testing.T) {
	out := filepath.Join(t.TempDir(), "conv.parquet")
	if _, err := run(t, "trace", "import", "--format", "auto", "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", out); err != nil {
		t.Fatal(err)
	}
	js, err := run(t, "trace", "stats", "--json", out)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Requests int     `json:"requests"`
		Span     float64 `json:"span_s"`
	}
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("%v in %q", err, js)
	}
	if s.Requests != 19366 || math.Abs(s.Span-3502) > 1 {
		t.Errorf("stats: %d requests over %.1f s, want 19366 over 3502±1 s", s.Requests, s.Span)
	}
}

// One request has no inter-arrival gap: its mean rate and CV are
// undefined, "—" in the table and null in JSON, not 0.
func TestTraceStatsOneRequestHasNoRate(t *testing.T) {
	src := writeFile(t, t.TempDir(), "one.csv", "arrival_ns,prompt_tokens,output_tokens\n5000000,100,20\n")
	out, err := run(t, "trace", "stats", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mean rate         — (span 0)\n", "inter-arrival CV  — (needs 3 arrivals over a span > 0)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
	js, err := run(t, "trace", "stats", "--json", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"mean_rate_per_s": null`, `"interarrival_cv": null`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
}

func TestTraceConvertKeepsObservedColumns(t *testing.T) {
	dir := t.TempDir()
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens = "x", 10, 2
	r.ScheduledSend, r.ActualSend, r.FirstToken, r.LastToken = 0, 10, 100, 200
	r.TokenTimes, r.UsagePrompt, r.UsageOutput, r.HTTPStatus = []int64{100, 200}, 30, 2, 200
	src := filepath.Join(dir, "a.parquet")
	if err := traces.WriteAll(src, traces.Meta{Source: "live"}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	prev := src
	for _, ext := range []string{".jsonl", ".csv", ".arrow", ".parquet"} {
		next := filepath.Join(dir, "b"+ext)
		if _, err := run(t, "trace", "convert", prev, next); err != nil {
			t.Fatal(err)
		}
		prev = next
	}
	meta, rows, err := traces.ReadAll(prev)
	if err != nil || len(rows) != 1 {
		t.Fatal(err, len(rows))
	}
	if got := rows[0]; meta.Source != "live" || got.LastToken != 200 || len(got.TokenTimes) != 2 || got.UsagePrompt != 30 {
		t.Errorf("after four conversions: %+v %+v", meta, got)
	}
}

func TestTraceImportBadRowLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.csv")
	os.WriteFile(in, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,-3,109\n"), 0o644)
	out := filepath.Join(dir, "out.parquet")
	_, err := run(t, "trace", "import", "--format", "azure", in, out)
	if err == nil || !strings.Contains(err.Error(), "bad.csv:3") {
		t.Fatalf("err = %v, want it to name bad.csv:3", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("failed import left files: %v", ents)
	}
}

// An interrupt (the context main cancels on SIGINT or SIGTERM) stops every
// trace verb with an error and leaves no output.
func TestTraceVerbsStopWhenInterrupted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	if _, err := run(t, "trace", "synth", "--requests", "3000", src); err != nil {
		t.Fatal(err)
	}
	azure := "../../traces/testdata/azure2023_code_head200.csv"
	out := filepath.Join(dir, "out.parquet")
	for _, args := range [][]string{
		{"import", "--format", "azure", azure, out},
		{"convert", src, out},
		{"synth", "--requests", "3000", out},
		{"synth", "--resample", src, out},
		{"slice", "--head", "2000", src, out},
		{"scale", "--time-factor", "2", src, out},
		{"stats", src},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		app := newApp()
		var buf bytes.Buffer
		app.Writer, app.ErrWriter = &buf, &buf
		err := app.RunContext(ctx, append([]string{"servesim", "trace"}, args...))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: err = %v, want context.Canceled", args, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: an interrupted run left %s", args, out)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%v: left %v, want only src.csv", args, ents)
		}
	}
}

// A --block-size or --rate out of range is a usage error: exit 2, no trace.
func TestSynthOutOfRangeFlagsExitUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, args := range [][]string{{"--block-size", "10000001"}, {"--rate", "2e6"}} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, args...), out)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: exit %d, %v; want exit 2 naming %s", args, code, err, args[0])
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
			os.Remove(out)
		}
	}
}

// Flags the chosen synth mode would ignore are refused, and flag errors
// name the flag.
func TestSynthConflictingFlags(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	os.WriteFile(src, []byte("arrival_ns,prompt_tokens,output_tokens\n0,100,20\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--resample", src, "--prompt", "fixed:7"}, "--prompt conflicts with it"},
		{[]string{"--resample", src, "--prompt-lengths", "7,9"}, "--prompt-lengths conflicts with it"},
		{[]string{"--repeats", "2"}, "--repeats applies to --prompt-lengths only"},
		{[]string{"--prompt-lengths", "128", "--prompt", "fixed:7"}, "--prompt conflicts with it"},
		{[]string{"--prompt-lengths", "128", "--requests", "50"}, "--requests conflicts with it"},
		// An empty list (an unset shell variable) is no matrix: --repeats
		// would go unused and the default process trace be written.
		{[]string{"--prompt-lengths", "", "--repeats", "5"}, "--prompt-lengths: want at least one length"},
		{[]string{"--prompt-lengths", ""}, "--prompt-lengths: want at least one length"},
		{[]string{"--cv", "4"}, "--cv applies to --arrival gamma only"},
		{[]string{"--arrival", "constant", "--cv", "4"}, "--cv applies to --arrival gamma only"},
		{[]string{"--prefix-tokens", "64"}, "--prefix-groups and --prefix-tokens go together"},
		{[]string{"--prefix-groups", "2", "--prefix-tokens", "-1"}, "--prefix-groups and --prefix-tokens go together"},
		// SynthConfig's errors, with the flag named for the field.
		{[]string{"--rate", "0"}, "trace synth: --rate: must be positive and finite, got 0"},
		{[]string{"--block-size", "1099511627776"}, "trace synth: --block-size: 1099511627776 tokens is past any prompt: want a block size in [0, 10000000]"},
		{[]string{"--rate", "3e9"}, "trace synth: --rate: 3e+09 requests/s is past the clock's resolution: want at most 1e+06"},
		{[]string{"--requests", "-2", "--arrival", "weibull"}, "trace synth: --requests: want at least 1, got -2\ntrace synth: --arrival: want constant"},
	} {
		out := filepath.Join(dir, "out.csv")
		args := append(append([]string{"trace", "synth"}, tc.args...), out)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "import", "--spread", "-3s", src, filepath.Join(dir, "o.csv")}, "--spread and --rate must be ≥ 0"},
		{[]string{"trace", "scale", "--rate-factor", "0", src, filepath.Join(dir, "o.csv")}, "--rate-factor 0: want a finite factor > 0"},
		{[]string{"trace", "convert", src, filepath.Join(dir, "none", "o.csv")}, "o.csv: directory " + filepath.Join(dir, "none") + " does not exist"},
		{[]string{"calibrate", "--out", filepath.Join(dir, "p.json"), "--max-concurrency", "-5", "--dry-run"}, "--max-concurrency -5: want ≥ 0"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// --rate gives arrivals only to a format without timestamps: for one with
// them it would be silently ignored, so it is refused (exit 2, no output).
func TestImportRateOnlyForShareGPT(t *testing.T) {
	dir := t.TempDir()
	azure := "../../traces/testdata/azure2023_code_head200.csv"
	out := filepath.Join(dir, "o.parquet")
	for _, args := range [][]string{
		{"trace", "import", "--rate", "5", azure, out},
		{"trace", "import", "--format", "azure", "--rate", "5", azure, out},
		{"trace", "stats", "--rate", "5", azure},
	} {
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--rate: "+azure+" is azure, whose timestamps give the arrivals") {
			t.Errorf("%v: exit %d, %v; want exit 2 naming --rate, the file and its format", args, code, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
		}
	}
	share := writeFile(t, dir, "share.json", `[{"id":"a","conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello"}]}]`)
	if _, code, err := runCode(t, "trace", "import", "--rate", "5", share, out); code != 0 {
		t.Fatalf("sharegpt with --rate: exit %d, %v", code, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// --seed drives only ShareGPT's arrival process: for a format with
// timestamps it would be silently ignored, so it is refused as --rate is.
func TestImportSeedOnlyForShareGPT(t *testing.T) {
	dir := t.TempDir()
	azure := "../../traces/testdata/azure2023_code_head200.csv"
	out := filepath.Join(dir, "o.parquet")
	_, code, err := runCode(t, "trace", "import", "--seed", "7", azure, out)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--seed: "+azure+" is azure") {
		t.Errorf("import --seed on azure: exit %d, %v; want exit 2 naming --seed, the file and its format", code, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
	share := writeFile(t, dir, "share.json", `[{"id":"a","conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello"}]}]`)
	if _, code, err := runCode(t, "trace", "import", "--rate", "5", "--seed", "7", share, out); code != 0 {
		t.Fatalf("sharegpt with --seed: exit %d, %v", code, err)
	}
}

// ShareGPT's arrivals need --rate: without it (or with 0) the error names
// the flag, not only "an arrival rate". trace stats needs it as import
// does: a default rate would print a mean rate the file never had.
func TestImportShareGPTNeedsRate(t *testing.T) {
	dir := t.TempDir()
	share := writeFile(t, dir, "share.json", `[{"id":"a","conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"hello"}]}]`)
	out := filepath.Join(dir, "o.csv")
	for _, args := range [][]string{
		{"trace", "import", share, out},
		{"trace", "import", "--rate", "0", share, out},
		{"trace", "stats", "--rate", "0", share},
		{"trace", "stats", share},
	} {
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--rate: "+share+" is sharegpt") {
			t.Errorf("%v: exit %d, %v; want exit 2 naming --rate and the file", args, code, err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("wrote %s", out)
	}
	if got, code, err := runCode(t, "trace", "stats", "--rate", "5", share); code != 0 || !strings.Contains(got, "requests") {
		t.Errorf("stats --rate 5 on sharegpt: exit %d, %v:\n%s", code, err, got)
	}
}

// --prompt-lengths items are token counts in digits, spaces around them
// allowed: a sign, which strconv.ParseInt takes, is refused, and a
// length past int32 is out of range, with the range given.
func TestParsePromptLengthsDigits(t *testing.T) {
	for in, want := range map[string]string{
		"+3":                   `--prompt-lengths: "+3" is not a token count: want digits (no sign), in [0, 10000000]`,
		"128, +512":            `--prompt-lengths: "+512" is not a token count`,
		"128,2147483648":       `--prompt-lengths: "2147483648" is out of range: want a token count in [0, 10000000]`,
		"99999999999999999999": `"99999999999999999999" is out of range: want a token count in [0, 10000000]`,
	} {
		if ls, err := parsePromptLengths(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsePromptLengths(%q) = %v, %v, want an error containing %s", in, ls, err, want)
		}
	}
	if ls, err := parsePromptLengths("128, 512 ,2048"); err != nil || len(ls) != 3 || ls[0] != 128 || ls[1] != 512 || ls[2] != 2048 {
		t.Errorf(`parsePromptLengths("128, 512 ,2048") = %v, %v, want [128 512 2048]`, ls, err)
	}
}

// A trace verb whose output is its input would replace the input with the
// result (a slice of it, say): it is refused, as simulate and verify
// refuse, and the input is left as it was.
func TestTraceVerbsRefuseToOverwriteTheirInput(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "t.csv", smallCSV)
	for _, args := range [][]string{
		{"trace", "import", src, src},
		{"trace", "convert", src, src},
		{"trace", "slice", "--head", "1", src, src},
		{"trace", "scale", "--time-factor", "2", src, src},
		{"trace", "slice", "--head", "1", src, filepath.Join(dir, ".", "t.csv")},
		{"trace", "synth", "--resample", src, src},
	} {
		_, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "would overwrite the input") {
			t.Errorf("%s: err = %v, want it to refuse to overwrite the input", strings.Join(args, " "), err)
		}
		if b, _ := os.ReadFile(src); string(b) != smallCSV {
			t.Fatalf("%s: the input now holds\n%s", strings.Join(args, " "), b)
		}
	}
}
