package main

import (
	"strings"
	"testing"
)

// Each flag's help shows one default, the true one.
func TestHelpShowsOneDefault(t *testing.T) {
	for _, cmd := range [][]string{{"simulate"}, {"calibrate"}, {"record"}, {"record", "proxy"}, {"verify"}, {"sweep", "merge"}, {"compare"}, {"report"}} {
		help, err := runWith(t, append(cmd, "--help")...)
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
