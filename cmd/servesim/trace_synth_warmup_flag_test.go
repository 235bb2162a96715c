package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Warm-up rows count toward the rows whose span or number a rate is
// refused for: the error names --warmup beside --requests, so the user
// sees both flags that made the count.
func TestSynthRowCountErrorsNameWarmupFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.csv")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		// 6 rows at 1e-9/s span 5e9 s, past the clock; 3 rows alone fit.
		{[]string{"--requests", "3", "--warmup", "3", "--arrival", "constant", "--rate", "1e-9"},
			[]string{"synth: --rate: ", "6 rows (--requests 3 + --warmup 3)"}},
		{[]string{"--requests", "9223372036854775807", "--warmup", "1"},
			[]string{"synth: --requests: 9223372036854775807 and --warmup 1 overflow the row count"}},
		{[]string{"--prompt-lengths", "8,16", "--repeats", "4611686018427387903", "--warmup", "2"},
			[]string{"synth: --repeats: 4611686018427387903 × 2 lengths of --prompt-lengths and --warmup 2 overflow the row count"}},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil {
			t.Fatalf("%v: exit %d, err = %v; want exit 2", tc.args, code, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: err = %q; want %q", tc.args, err, w)
			}
		}
	}
}
