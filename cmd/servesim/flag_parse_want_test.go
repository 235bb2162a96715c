package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A flag value that does not parse says what the flag wants: Go's flag
// package says only "parse error", which leaves "--from 10" (seconds
// without a unit) or "--seed -1" a riddle.
func TestFlagParseErrorSaysWhatIsWanted(t *testing.T) {
	dir := t.TempDir()
	in := "../../traces/testdata/azure2023_code_head200.csv"
	out := filepath.Join(dir, "o.parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "slice", "--from", "10", in, out}, `invalid value "10" for flag -from: parse error: want a duration such as 90s or 1m30s`},
		{[]string{"trace", "import", "--seed", "-1", in, out}, `flag -seed: parse error: want a non-negative integer`},
		{[]string{"trace", "scale", "--time-factor", "abc", in, out}, `flag -time-factor: parse error: want a number`},
		{[]string{"trace", "synth", "--requests", "1.5", out}, `flag -requests: parse error: want an integer`},
	} {
		_, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want exit 2 and %q", tc.args, code, err, tc.want)
		}
	}
}
