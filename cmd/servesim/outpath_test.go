package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output file that names a directory, or lies in one that does not
// exist, is a usage error found before any work, naming the argument or
// flag: the rename that publishes the file cannot replace a directory,
// and a simulation or a recording found that out only once it was done
// ("x.csv: file exists").
func TestOutputFileIsNotADirectory(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	taken := filepath.Join(dir, "taken.csv")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	taken2 := filepath.Join(dir, "taken2.csv") // apart from what record may leave beside taken
	if err := os.Mkdir(taken2, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "such.csv")
	run2 := filepath.Join(dir, "rep.run2.csv") // run 2's trace with --repeat 2
	if err := os.Mkdir(run2, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := basePlan(t, dir, "p.toml")
	url, n := countingServer(t)
	wantUsageErrors(t, []usageCase{
		{[]string{"trace", "convert", in, taken}, "OUT: " + taken + " is a directory"},
		{[]string{"trace", "convert", in, missing}, "OUT: " + missing + ": directory"},
		{[]string{"trace", "synth", "--requests", "3", taken}, "OUT: " + taken + " is a directory"},
		{[]string{"trace", "slice", in, taken}, "OUT: " + taken + " is a directory"},
		{[]string{"trace", "scale", "--time-factor", "2", in, taken}, "OUT: " + taken + " is a directory"},
		{[]string{"trace", "import", in, taken}, "OUT: " + taken + " is a directory"},
		{[]string{"simulate", "--trace", in, "--config", plan, "--decisions", taken}, "simulate: --decisions: " + taken + " is a directory"},
		{[]string{"simulate", "--trace", in, "--config", plan, "--decisions", missing}, "simulate: --decisions: " + missing + ": directory"},
		{[]string{"record", "--trace", in, "--out", taken, "--base-url", url, "--model", "m", "--tokens-per-byte", "0.25"}, "record: --out: " + taken + " is a directory"},
		{[]string{"record", "--trace", in, "--out", filepath.Join(dir, "rep.csv"), "--repeat", "2", "--base-url", url, "--model", "m", "--tokens-per-byte", "0.25"}, "record: --out: " + run2 + " is a directory: want a file"},
		{[]string{"record", "proxy", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--out", taken2}, "record proxy: --out: " + taken2 + " is a directory"},
	})
	if n.Load() != 0 {
		t.Errorf("record sent %d requests before refusing its --out", n.Load())
	}
}

// An output path that is refused reads "CMD: --flag: PATH …" in every
// command, as a missing input's and record's --out do: calibrate,
// simulate, sweep, report and verify wrote "--flag PATH …".
func TestOutputPathErrorsNameTheFlagOneWay(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	plan := basePlan(t, dir, "p.toml")
	file := writeFile(t, dir, "file", "")
	taken := filepath.Join(dir, "taken.json")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "such.json")
	url, n := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	prof := filepath.Join("..", "..", "calibrate", "testdata", "profile_v1.json")
	live := []string{"--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1"}
	calibrate := func(args ...string) []string {
		return append(append([]string{"calibrate"}, args...), append(live, "--max-concurrency", "2", "--repeats", "1", "--max-prompt", "64", "--prompt-overhead", "20")...)
	}
	verify := func(refitOut string) []string {
		return append(append([]string{"verify", "--candidates", cands, "--trace", tr, "--out", filepath.Join(dir, "v")}, live...), "--profile", prof, "--refit", "--refit-out", refitOut)
	}
	profJSON := filepath.Join(dir, "p.json")
	wantUsageErrors(t, []usageCase{
		{calibrate("--out", taken), "calibrate: --out: " + taken + " is a directory"},
		{calibrate("--out", missing), "calibrate: --out: " + missing + ": directory"},
		{calibrate("--out", profJSON, "--trace-out", file), "calibrate: --trace-out: " + file + " is a file"},
		{calibrate("--out", profJSON, "--trace-out", filepath.Join(dir, "no", "runs")), "calibrate: --trace-out: " + filepath.Join(dir, "no", "runs") + ": directory"},
		{calibrate("--out", profJSON, "--trace-out", profJSON), "calibrate: --out: " + profJSON + " and --trace-out: " + profJSON + " are the same file"},
		{[]string{"calibrate", "--vidur-profile", vidurLlama2H100, "--model", "Llama-2-7B", "--device", "H100-SXM-80G", "--out", taken}, "calibrate: --out: " + taken + " is a directory"},
		{[]string{"calibrate", "--vidur-profile", vidurLlama2H100, "--model", "Llama-2-7B", "--device", "H100-SXM-80G", "--out", missing}, "calibrate: --out: " + missing + ": directory"},
		{[]string{"simulate", "--trace", in, "--config", plan, "--decisions", in}, "simulate: --decisions: " + in + " would overwrite the input --trace: " + in},
		{[]string{"sweep", "merge", filepath.Join(dir, "m.csv"), in}, "sweep merge: OUT: " + filepath.Join(dir, "m.csv") + ": want a .parquet file"},
		{[]string{"report", "-o", filepath.Join(dir, "r.txt"), in}, "report: -o/--out: " + filepath.Join(dir, "r.txt") + ": unknown report extension"},
		{[]string{"report", "-o", dir, in}, "report: -o/--out: " + dir + ": unknown report extension"},
		{[]string{"report", "-o", filepath.Join(dir, "no", "r.html"), in}, "report: -o/--out: " + filepath.Join(dir, "no", "r.html") + ": directory"},
		{verify(taken), "verify: --refit-out: " + taken + " is a directory"},
		{verify(missing), "verify: --refit-out: " + missing + ": directory"},
	})
	if n.Load() != 0 {
		t.Errorf("%d requests reached the engine before an output was refused", n.Load())
	}
	for _, args := range [][]string{
		{"simulate", "--trace", in, "--config", plan, "--out", file},
		{"simulate", "--trace", in, "--sweep", smallSweep, "--out", file, "-q"},
	} {
		// A file at --out is a usage error, found before any plan runs.
		if _, code, err := runCode(t, args...); code != 2 || !strings.Contains(err.Error(), "simulate: --out: "+file+": want a directory") {
			t.Errorf("%v: exit %d, err %v; want 2 and one naming --out: %s", args, code, err, file)
		}
	}
}

// An --out directory beneath a file cannot be created: that is a usage
// error found before any plan runs, as a file at --out itself is.
func TestOutDirBeneathAFileIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	plan := basePlan(t, dir, "p.toml")
	file := writeFile(t, dir, "file", "")
	out := filepath.Join(file, "sub", "out")
	wantUsageErrors(t, []usageCase{
		{[]string{"simulate", "--trace", in, "--config", plan, "--out", out}, "simulate: --out: " + out + ": " + file + " is a file, not a directory"},
		{[]string{"simulate", "--trace", in, "--sweep", smallSweep, "--out", out, "-q"}, "simulate: --out: " + out + ": " + file + " is a file"},
	})
}

// sweep merge's OUT is checked as a trace verb's is: a directory, or a
// file in a directory that does not exist, is refused before the shards
// are read and merged, not at the rename that publishes the merge.
func TestSweepMergeOutIsNotADirectory(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", dir, "--shard", s, "-q"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "sweep-shard-0-of-2.parquet"), filepath.Join(dir, "sweep-shard-1-of-2.parquet")
	taken := filepath.Join(dir, "taken.parquet")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no", "m.parquet")
	wantUsageErrors(t, []usageCase{
		{[]string{"sweep", "merge", taken, a, b}, "sweep merge: OUT: " + taken},
		{[]string{"sweep", "merge", missing, a, b}, "sweep merge: OUT: " + missing},
	})
}

// A decision log inside a new --out directory is written there: the run
// creates that directory, so it is not one that does not exist.
func TestDecisionsInsideANewOutDir(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	plan := basePlan(t, dir, "p.toml")
	out := filepath.Join(dir, "results")
	log := filepath.Join(out, "steps.jsonl")
	if _, err := run(t, "simulate", "--trace", in, "--config", plan, "--out", out, "--decisions", log); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{log, filepath.Join(out, "summary.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// A directory where simulate, a sweep or a merge would put one of its
// files is a usage error found before any work: the rename that
// publishes the file failed only once the work was done, after the files
// published before it (a summary-less run, results without candidates).
func TestOutputFilesUnderOutAreNotDirectories(t *testing.T) {
	tr := shortTrace(t)
	dir := t.TempDir()
	plan := basePlan(t, dir, "p.toml")
	shards := filepath.Join(dir, "shards")
	for _, s := range []string{"0/2", "1/2"} {
		if _, err := run(t, "simulate", "--trace", tr, "--sweep", smallSweep, "--out", shards, "--shard", s, "-q"); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(shards, "sweep-shard-0-of-2.parquet"), filepath.Join(shards, "sweep-shard-1-of-2.parquet")
	taken := func(name, file string) (out, path string) {
		out = filepath.Join(dir, name)
		path = filepath.Join(out, file)
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return out, path
	}
	sim, summary := taken("sim", "summary.json")
	sim2, parquet := taken("sim2", "p.parquet")
	sw, cands := taken("sweep", "candidates.json")
	merged, mergedCands := taken("merged", "candidates.json")
	wantUsageErrors(t, []usageCase{
		{[]string{"simulate", "--trace", tr, "--config", plan, "--out", sim}, "simulate: --out: " + summary + " is a directory"},
		{[]string{"simulate", "--trace", tr, "--config", plan, "--out", sim2}, "simulate: --out: " + parquet + " is a directory"},
		{[]string{"simulate", "--trace", tr, "--sweep", smallSweep, "--out", sw, "--top", "2", "-q"}, "simulate: --out: " + cands + " is a directory"},
		{[]string{"sweep", "merge", "--top", "2", filepath.Join(merged, "m.parquet"), a, b}, "sweep merge: OUT: " + mergedCands + " is a directory"},
	})
	for _, p := range []string{filepath.Join(sim, "p.parquet"), filepath.Join(sim2, "summary.json"), filepath.Join(sw, "sweep.parquet"), filepath.Join(merged, "m.parquet")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written by a refused run (%v)", p, err)
		}
	}
}

// An --out directory is made, but not the directories above it, as an
// output file needs its directory to exist: a mistyped parent is a usage
// error naming it, found before any work, not a new tree of folders.
func TestOutDirInAMissingDirectoryIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	plan := basePlan(t, dir, "p.toml")
	url, n := countingServer(t)
	cands, tr := oneCandidate(t, dir)
	missing := filepath.Join(dir, "no")
	out := filepath.Join(missing, "out")
	wantUsageErrors(t, []usageCase{
		{[]string{"simulate", "--trace", in, "--config", plan, "--out", out}, "simulate: --out: " + out + ": directory " + missing + " does not exist"},
		{[]string{"simulate", "--trace", in, "--sweep", smallSweep, "--out", out, "-q"}, "simulate: --out: " + out + ": directory " + missing + " does not exist"},
		{[]string{"verify", "--candidates", cands, "--trace", tr, "--out", out, "--base-url", url, "--model", "m", "--tokens-per-byte", "1"}, "verify: --out: " + out + ": directory " + missing + " does not exist"},
	})
	if n.Load() != 0 {
		t.Errorf("%d requests reached the engine before --out was refused", n.Load())
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s made by a refused run (%v)", missing, err)
	}
}

// An --out written with a trailing slash, as a shell completes a folder's
// name, is the same directory: its parent is the one that must exist.
func TestOutDirWithATrailingSlashIsMade(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	plan := basePlan(t, dir, "p.toml")
	out := filepath.Join(dir, "results") + string(filepath.Separator)
	if _, err := run(t, "simulate", "--trace", in, "--config", plan, "--out", out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(dir, "no")
	wantUsageErrors(t, []usageCase{
		{[]string{"simulate", "--trace", in, "--config", plan, "--out", filepath.Join(missing, "out") + "/"}, "directory " + missing + " does not exist"},
	})
}

// calibrate's --trace-out is a directory the run makes: written with a
// trailing slash it lies in its parent, as --out does.
func TestCalibrateTraceOutWithATrailingSlash(t *testing.T) {
	dir := t.TempDir()
	if err := checkCalibrateOutputs(filepath.Join(dir, "p.json"), filepath.Join(dir, "runs")+"/", true); err != nil {
		t.Error(err)
	}
	missing := filepath.Join(dir, "no")
	err := checkCalibrateOutputs(filepath.Join(dir, "p.json"), filepath.Join(missing, "runs")+"/", true)
	if err == nil || !strings.Contains(err.Error(), "directory "+missing+" does not exist") {
		t.Errorf("err = %v, want %s named as the directory that does not exist", err, missing)
	}
}

// A file named as an --out directory with a trailing slash is still that
// file: stat reports "not a directory", which is no sign it is missing.
func TestOutDirWithATrailingSlashOnAFile(t *testing.T) {
	file := writeFile(t, t.TempDir(), "taken", "a file\n")
	err := checkOutDir("simulate", file+"/")
	if want := "--out: " + file + "/: want a directory, not a file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// A --trace-out that is a file stays refused with a trailing slash.
func TestCalibrateTraceOutWithATrailingSlashOnAFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "runs", "a file\n")
	err := checkCalibrateOutputs(filepath.Join(dir, "p.json"), file+"/", true)
	if want := "--trace-out: " + file + "/ is a file: want a directory"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
