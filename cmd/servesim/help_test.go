package main

import (
	"strings"
	"testing"
)

// Each flag's help shows one default, the true one.
func TestHelpShowsOneDefault(t *testing.T) {
	for _, cmd := range [][]string{{"simulate"}, {"calibrate"}, {"record"}, {"record", "proxy"}, {"verify"}, {"sweep", "merge"}, {"compare"}, {"report"}} {
		help, err := run(t, append(cmd, "--help")...)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(help, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%v: %s", cmd, strings.TrimSpace(line))
			}
		}
	}
	help, _ := run(t, "calibrate", "--help")
	for _, want := range []string{"(required", "--window value", "(default: 8)", "(default: 8 quick, 32 full)"} {
		if !strings.Contains(help, want) {
			t.Errorf("calibrate --help lacks %q", want)
		}
	}
}

// A command name servesim does not know is a usage error (exit status 2)
// that says so. urfave/cli's fallback answered "No help topic" with exit
// status 3, which is compare's regression status: a mistyped
// `servesim comapre A B` in a re-measure routine read as a regression.
func TestUnknownCommandIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"comapre", "a", "b"}, "comapre"},
		{[]string{"trace", "stat", "x.csv"}, "stat"},
		{[]string{"sweep", "merg", "o.parquet", "s.parquet"}, "merg"},
	} {
		out, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "unknown command") || !strings.Contains(err.Error(), `"`+tc.name+`"`) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming the unknown command %q\n%s", tc.args, code, err, tc.name, out)
		}
	}
	// Help still answers, with status 0.
	for _, args := range [][]string{{}, {"help"}, {"trace"}, {"sweep"}} {
		if out, code, err := runCode(t, args...); code != 0 || !strings.Contains(out, "USAGE") {
			t.Errorf("%v: exit %d, err %v; want the help, exit 0\n%s", args, code, err, out)
		}
	}
}
