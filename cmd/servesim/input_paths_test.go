package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An input path that does not exist, or is a directory where a file is
// wanted, or a servesim trace with an unknown extension, is a usage error
// in every command, as record's --trace: exit status 2, found before any
// work, naming the flag or argument and the path in one form ("--trace:
// PATH", as the error of a file that does not parse names them).
func TestMissingInputIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.csv", smallCSV)
	odd := writeFile(t, dir, "t.xyz", smallCSV)
	spec := writeFile(t, dir, "spec.toml", "")
	cands := writeFile(t, dir, "c.json", "{}")
	nope := func(name string) string { return filepath.Join(dir, name) }
	out := filepath.Join(dir, "o.csv")
	live := []string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m"}
	cases := []struct {
		flag, path string
		args       []string
	}{
		{"--trace", nope("n.csv"), []string{"simulate", "--trace", nope("n.csv")}},
		{"--trace", dir, []string{"simulate", "--trace", dir}},
		{"--config", nope("n.toml"), []string{"simulate", "--trace", trace, "--config", nope("n.toml")}},
		{"--catalog", nope("n.toml"), []string{"simulate", "--trace", trace, "--catalog", nope("n.toml")}},
		{"--profile", nope("n.json"), []string{"simulate", "--trace", trace, "--profile", nope("n.json")}},
		{"--sweep", nope("n.toml"), []string{"simulate", "--sweep", nope("n.toml")}},
		{"--trace", nope("n.csv"), []string{"simulate", "--sweep", spec, "--trace", nope("n.csv")}},
		{"--profile", nope("n.json"), []string{"simulate", "--sweep", spec, "--profile", nope("n.json")}},
		{"--candidates", nope("n.json"), append([]string{"verify", "--candidates", nope("n.json"), "--trace", trace}, live...)},
		{"--trace", nope("n.csv"), append([]string{"verify", "--candidates", cands, "--trace", nope("n.csv")}, live...)},
		{"--profile", nope("n.json"), append([]string{"verify", "--candidates", cands, "--trace", trace, "--profile", nope("n.json")}, live...)},
		{"--catalog", nope("n.toml"), append([]string{"verify", "--candidates", cands, "--trace", trace, "--catalog", nope("n.toml")}, live...)},
		{"A", nope("n.csv"), []string{"compare", nope("n.csv"), trace}},
		{"B", nope("n.csv"), []string{"compare", trace, nope("n.csv") + "#x"}},
		{"RESULTS", nope("n.csv"), []string{"report", nope("n.csv")}},
		{"--verify", nope("n.json"), []string{"report", "--verify", nope("n.json")}},
		{"IN", nope("n.csv"), []string{"trace", "convert", nope("n.csv"), out}},
		{"IN", odd, []string{"trace", "convert", odd, out}},
		{"IN", dir, []string{"trace", "convert", dir, out}},
		{"IN", nope("n.csv"), []string{"trace", "slice", "--to", "1s", nope("n.csv"), out}},
		{"IN", odd, []string{"trace", "slice", "--to", "1s", odd, out}},
		{"IN", nope("n.csv"), []string{"trace", "scale", "--time-factor", "2", nope("n.csv"), out}},
		{"IN", nope("n.json"), []string{"trace", "import", nope("n.json"), out}},
		{"IN", nope("n.csv"), []string{"trace", "stats", nope("n.csv")}},
		{"--resample", nope("n.csv"), []string{"trace", "synth", "--resample", nope("n.csv"), out}},
		{"SHARD", nope("n.parquet"), []string{"sweep", "merge", filepath.Join(dir, "m.parquet"), nope("n.parquet")}},
		{"--from-traces", nope("runs"), []string{"calibrate", "--from-traces", nope("runs"), "--out", filepath.Join(dir, "p.json")}},
		{"--vidur-profile", nope("mlp.csv"), []string{"calibrate", "--vidur-profile", nope("mlp.csv"), "--model", "llama-3.1-8b", "--device", "H100-SXM-80G", "--out", filepath.Join(dir, "p.json")}},
		{"--trace", nope("n.csv"), append([]string{"record", "--trace", nope("n.csv"), "--out", filepath.Join(dir, "r.csv")}, live...)},
		{"--settings", nope("s.toml"), []string{"record", "--settings", nope("s.toml")}},
		{"--settings", dir, []string{"record", "--settings", dir}},
	}
	for _, tc := range cases {
		_, code, err := runCode(t, tc.args...)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if code != 2 || !strings.Contains(msg, ": "+tc.flag+": "+tc.path) || strings.Contains(msg, "calibrate: loading") {
			t.Errorf("%s: exit %d, %q; want 2 naming %s: %s", strings.Join(tc.args[:2], " "), code, msg, tc.flag, tc.path)
		}
	}
}

// A --profile that exists but does not parse is failed work (exit 1),
// named by the command and flag that read it, not by calibrate.
func TestMalformedProfileNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.csv", smallCSV)
	prof := writeFile(t, dir, "p.json", "{")
	_, code, err := runCode(t, "simulate", "--trace", trace, "--profile", prof)
	if code != 1 || err == nil || !strings.HasPrefix(err.Error(), "simulate: --profile: "+prof+": ") {
		t.Errorf("exit %d, %v; want 1 and an error starting \"simulate: --profile: %s: \"", code, err, prof)
	}
}

// --from-traces names a calibration's trace directory: a file there is a
// usage error naming the flag, as a path that does not exist is.
func TestFromTracesFileIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "t.parquet", "")
	_, code, err := runCode(t, "calibrate", "--from-traces", file, "--out", filepath.Join(dir, "p.json"))
	if want := "calibrate: --from-traces: " + file + " is not a directory"; code != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("exit %d, %v; want 2 and %q", code, err, want)
	}
}

// checkInputs refuses a path of the wrong kind with a message that says
// which kind was wanted, and takes either where either is.
func TestCheckInputsWantsTheKindAsked(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "f.csv", smallCSV)
	for _, c := range []struct {
		want inputKind
		path string
		msg  string // "" for no error
	}{
		{wantFile, file, ""},
		{wantFile, dir, "x: --in: " + dir + " is a directory: want a file"},
		{wantDir, dir, ""},
		{wantDir, file, "x: --in: " + file + " is not a directory: want a directory"},
		{wantFileOrDir, file, ""},
		{wantFileOrDir, dir, ""},
		{wantFileOrDir, filepath.Join(dir, "nope"), "x: --in: " + filepath.Join(dir, "nope") + ": no such file or directory"},
	} {
		err := checkInputs("x", c.want, namedPath{"--in", c.path})
		if got := errString(err); got != c.msg {
			t.Errorf("checkInputs(%d, %s) = %q, want %q", c.want, c.path, got, c.msg)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A folder given to report or compare that holds no summary.json (a
// sweep's --out folder, say) is a directory where a file is wanted: a
// usage error naming the argument, found before any input is read.
func TestResultsFolderWithoutSummaryIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.csv", smallCSV)
	for _, tc := range []struct{ name, want string }{
		{"report", "report: RESULTS: " + dir + ": no summary.json"},
		{"compare", "compare: A: " + dir + ": no summary.json"},
	} {
		args := []string{tc.name, dir, trace}
		if tc.name == "report" {
			args = append(args, "-o", filepath.Join(dir, "r.html"))
		}
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: exit %d, %v; want 2 and %q", tc.name, code, err, tc.want)
		}
	}
}
