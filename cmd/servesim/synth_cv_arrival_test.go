package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --cv beside an arrival other than gamma names the arrival it got: an
// --arrival spelt "Gamma" is not gamma, and "--cv applies to gamma only"
// alone read as if --arrival had been left out.
func TestSynthCVNamesTheArrivalGiven(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--arrival", "Gamma", "--cv", "2"}, `"Gamma"`},
		{[]string{"--cv", "2"}, `"poisson"`},
	} {
		args := append(append([]string{"trace", "synth"}, tc.args...), out)
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), "--cv") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming --cv and the arrival %s", tc.args, code, err, tc.want)
		}
	}
}
