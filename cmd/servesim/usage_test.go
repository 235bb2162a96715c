package main

import (
	"os"
	"strings"
	"testing"
)

// A flag urfave/cli cannot parse (unknown, or a value of the wrong kind)
// and a required flag left out are usage errors, exit status 2, as every
// other bad setting a verb finds, and the message names the flag. They
// ended in status 1, the status of a failed run (record's when no request
// succeeded).
func TestFlagErrorsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--concurrency", "x"}, "-concurrency"},
		{[]string{"record", "proxy", "--bogus"}, "-bogus"},
		{[]string{"compare", "--bogus", "a", "b"}, "-bogus"},
		{[]string{"trace", "stats", "--bogus", "x.csv"}, "-bogus"},
		{[]string{"--bogus"}, "-bogus"},
		{[]string{"verify", "--trace", "t.csv", "--model", "m"}, "--candidates, --base-url"},
		{[]string{"calibrate", "--dry-run"}, "--out"},
		{[]string{"record", "proxy", "--out", "x.parquet"}, "--upstream"},
		{[]string{"verify", "--candidates", "c.json", "--trace", "t.csv", "--base-url", "http://h/v1", "--model", "m", "extra"}, `"extra"`},
		{[]string{"calibrate", "--out", "p.json", "--dry-run", "extra"}, `"extra"`},
	} {
		out, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s\n%s", tc.args, code, err, tc.want, out)
		}
	}
}

// Every setting calibrate refuses before a live run is a usage error, as
// the flags it refuses with --from-traces are: a bad value exited 1, the
// status of a calibration that failed.
func TestCalibrateBadSettingsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := dir + "/p.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--held-out", "1"}, "--held-out"},
		{[]string{"--window", "-1"}, "--window"},
		{[]string{"--repeats", "-1"}, "--repeats"},
		{[]string{"--block-size", "-1"}, "--block-size"},
		{[]string{"--precision", "fp7"}, "--precision"},
		{[]string{"--without", "nope"}, "--without"},
		{[]string{"--plan", "medium"}, "medium"},
		{[]string{"--model", "m"}, "--base-url"},
		{[]string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--trace-out", dir + "/no/such"}, "--trace-out"},
		{[]string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--timeout", "-1s"}, "--timeout"},
	} {
		text, code, err := runCode(t, append([]string{"calibrate", "--out", out}, tc.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s\n%s", tc.args, code, err, tc.want, text)
		}
	}
}

// usageCase is a command line and what its usage error must name.
type usageCase struct {
	args []string
	want string
}

// wantUsageErrors checks that each case exits 2 with an error naming
// its want.
func wantUsageErrors(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		text, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s\n%s", tc.args, code, err, tc.want, text)
		}
	}
}

// compare's and report's bad settings and arguments are usage errors:
// they exited 1, as a run that failed does.
func TestCompareAndReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	wantUsageErrors(t, []usageCase{
		{[]string{"compare", "a"}, "A and B"},
		{[]string{"compare", "--threshold", "x", "a", "b"}, "--threshold"},
		{[]string{"compare", "a", "b", "--bogus"}, "--bogus"},
		{[]string{"compare", "a", "b", "--threshold"}, "--threshold needs a value"},
		{[]string{"compare", "--slo", "ttft=x", "a", "b"}, "--slo"},
		{[]string{"compare", "--a", "x", dir + "/run#y", "b"}, "--a/--b"},
		{[]string{"report"}, "RESULTS"},
		{[]string{"report", "-o", dir + "/r.txt", in}, "-o"},
		{[]string{"report", "-o", dir + "/no/such/r.html", in}, "-o"},
		{[]string{"report", in, "--bogus"}, "--bogus"},
		{[]string{"report", "--slo", "ttft=x", in}, "--slo"},
	})
}

// simulate's bad settings, with and without --sweep, are usage errors,
// checked before any file is read; they exited 1.
func TestSimulateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	cfg := basePlan(t, dir, "p.toml")
	cluster := basePlan(t, dir, "c.toml", "[cost]", "[cluster]\nreplicas = 2\nrouter = \"round_robin\"\n\n[cost]")
	if err := os.Mkdir(dir+"/b", 0o755); err != nil {
		t.Fatal(err)
	}
	other := basePlan(t, dir+"/b", "p.toml")
	wantUsageErrors(t, []usageCase{
		{[]string{"simulate", "x"}, `"x"`},
		{[]string{"simulate", "--top", "3"}, "--top"},
		{[]string{"simulate", "--closed-loop-gap", "1ms"}, "--closed-loop-gap"},
		{[]string{"simulate", "--catalog", dir + "/none.toml", "--closed-loop", "0"}, "--closed-loop"},
		{[]string{"simulate", "--closed-loop", "2", "--closed-loop-gap", "2m"}, "--closed-loop-gap"},
		{[]string{"simulate", "--session-wait", "--closed-loop-gap", "2m"}, "--closed-loop-gap"},
		{[]string{"simulate", "--session-wait", "--closed-loop", "2"}, "--session-wait does not combine with --closed-loop"},
		{[]string{"simulate", "--config", cluster, "--trace", in, "--session-wait"}, "--session-wait"},
		{[]string{"simulate", "--config", cfg, "--trace", in, "--decisions", in}, "--decisions"},
		{[]string{"simulate", "--config", cfg, "--config", cluster, "--trace", in, "--decisions", dir + "/d.jsonl"}, "--decisions"},
		{[]string{"simulate", "--config", cfg, "--config", other, "--trace", in}, "--config"},
		{[]string{"simulate", "--sweep", "s.toml", "--json"}, "--json"},
		{[]string{"simulate", "--sweep", "s.toml", "--shard", "2/2"}, "--shard"},
		{[]string{"simulate", "--sweep", "s.toml", "--shard", "0/2"}, "--shard needs --out"},
		{[]string{"simulate", "--sweep", "s.toml", "--top", "3"}, "--top"},
		{[]string{"simulate", "--sweep", "s.toml", "--out", dir, "--top", "-1"}, "--top"},
		{[]string{"simulate", "--sweep", "s.toml", "--workers", "-1"}, "--workers"},
		{[]string{"simulate", "--sweep", "s.toml", "--out", dir, "--shard", "0/2", "--top", "2"}, "--top"},
		{[]string{"simulate", "--sweep", dir + "/none.toml", "--knee-p99-pct", "0"}, "--knee-p99-pct"},
		{[]string{"simulate", "--sweep", "s.toml", "--out", dir, "--trace", dir + "/candidates.json"}, "--out"},
		{[]string{"sweep", "merge", "o.parquet"}, "shard"},
		{[]string{"sweep", "merge", "o.parquet", "s.parquet", "--top", "3"}, "flags go before the arguments: --top"},
		{[]string{"sweep", "merge", "--top", "-1", "o.parquet", "s.parquet"}, "--top"},
		{[]string{"sweep", "merge", "o.txt", "s.parquet"}, "OUT"},
		{[]string{"sweep", "merge", "o.parquet", "o.parquet"}, "OUT"},
	})
}

// The trace verbs' bad settings and arguments are usage errors; they
// exited 1. A flag after the arguments is named as one: it was reported
// as a wrong number of arguments.
func TestTraceUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	out := dir + "/out.csv"
	wantUsageErrors(t, []usageCase{
		{[]string{"trace", "import", in}, "IN OUT"},
		{[]string{"trace", "import", in, out, "--format", "azure"}, "flags go before the arguments: --format"},
		{[]string{"trace", "import", "--max-tokens", "0", in, out}, "import: --max-tokens"},
		{[]string{"trace", "import", "--spread", "-1s", in, out}, "--spread"},
		{[]string{"trace", "convert", in, in}, "OUT"},
		{[]string{"trace", "convert", in, out, "-x"}, "flags go before the arguments: -x"},
		{[]string{"trace", "synth"}, "OUT"},
		{[]string{"trace", "synth", out, "--seed", "2"}, "flags go before the arguments: --seed"},
		{[]string{"trace", "synth", "--resample", in, "--prompt", "fixed:10", out}, "--prompt"},
		{[]string{"trace", "synth", "--resample", out, out}, "OUT"},
		{[]string{"trace", "synth", "--repeats", "2", out}, "--repeats"},
		{[]string{"trace", "synth", "--prompt-lengths", "10", "--requests", "3", out}, "--requests"},
		{[]string{"trace", "synth", "--cv", "2", out}, "--cv"},
		{[]string{"trace", "synth", "--prefix-groups", "1", out}, "--prefix-groups"},
		{[]string{"trace", "synth", "--prefix-groups", "1", "--prefix-tokens", "99999999", out}, "--prefix-tokens"},
		{[]string{"trace", "synth", "--prompt", "fixed", out}, "synth: --prompt"},
		{[]string{"trace", "synth", "--output", "fixed", out}, "synth: --output"},
		{[]string{"trace", "synth", "--prompt-lengths", "x", out}, "--prompt-lengths"},
		{[]string{"trace", "synth", "--rate", "0", out}, "--rate"},
		{[]string{"trace", "slice", "--from", "-1s", in, out}, "--from"},
		{[]string{"trace", "slice", in, out, "--head", "3"}, "flags go before the arguments: --head"},
		{[]string{"trace", "scale", in, out}, "--time-factor"},
		{[]string{"trace", "scale", "--time-factor", "0", in, out}, "--time-factor"},
		{[]string{"trace", "stats"}, "IN"},
		{[]string{"trace", "stats", in, "--json"}, "flags go before the arguments: --json"},
		{[]string{"trace", "stats", "--spread", "-1s", in}, "--spread"},
		{[]string{"trace", "stats", "--slo", "ttft=x", in}, "--slo"},
	})
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused command wrote %s", out)
	}
}

// An unknown --format is a bad flag value: a usage error naming the flag,
// as every other. It exited 1 without naming --format, and with --rate
// was reported as a format whose timestamps give the arrivals.
func TestTraceUnknownFormatIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	wantUsageErrors(t, []usageCase{
		{[]string{"trace", "import", "--format", "nope", in, dir + "/out.csv"}, "--format"},
		{[]string{"trace", "import", "--format", "nope", "--rate", "2", in, dir + "/out.csv"}, "--format"},
		{[]string{"trace", "stats", "--format", "nope", in}, "--format"},
	})
}

// An OUT whose extension names no trace format is a usage error, as
// record's --out is: the trace verbs exited 1, the status of a failed
// run, synth once it had built the trace.
func TestTraceOutputExtensionIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	out := dir + "/out.txt"
	wantUsageErrors(t, []usageCase{
		{[]string{"trace", "import", in, out}, "OUT"},
		{[]string{"trace", "convert", in, out}, "OUT"},
		{[]string{"trace", "synth", "--requests", "3", out}, "OUT"},
		{[]string{"trace", "slice", "--head", "1", in, out}, "OUT"},
		{[]string{"trace", "scale", "--time-factor", "2", in, out}, "OUT"},
	})
}
