package main

import (
	"strings"
	"testing"
)

// A trace subcommand's usage error names it as "sweep merge" names
// itself, "trace import: …": a bare "import: …" names no servesim verb.
func TestTraceUsageErrorsNameTheirCommand(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", smallCSV)
	out := dir + "/out.csv"
	missing := dir + "/missing.csv"
	cases := [][]string{
		{"trace", "import", missing, out},
		{"trace", "import", "--max-tokens", "0", in, out},
		{"trace", "convert", in},
		{"trace", "synth"},
		{"trace", "synth", "--requests", "0", out},
		{"trace", "slice", "--from", "-1s", in, out},
		{"trace", "scale", in, out},
		{"trace", "stats", missing},
	}
	for _, args := range cases {
		_, code, err := runCode(t, args...)
		want := strings.Join(args[:2], " ") + ": "
		if code != 2 || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 and an error starting %q", args, code, err, want)
		}
	}
}
