package main

import (
	"os"
	"strings"
	"testing"
)

// Poisson arrivals can run past the 2^32 s clock though their expected
// span is within it: that is found only while writing, and is still a
// usage error naming the flags that set the span, with no trace or temp
// file left behind.
func TestSynthDrawnSpanPastClockIsUsageError(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"matrix":   {[]string{"--prompt-lengths", "1,2,3", "--rate", "1e-9"}, []string{"--rate", "--prompt-lengths", "--repeats", "2^32 s"}},
		"requests": {[]string{"--requests", "3", "--rate", "1e-9"}, []string{"--rate", "--requests", "2^32 s"}},
	} {
		dir := t.TempDir()
		args := append(append([]string{"trace", "synth"}, tc.args...), dir+"/out.csv")
		_, code, err := runCode(t, args...)
		if code != 2 || err == nil {
			t.Fatalf("%s: exit %d, err = %v; want a usage error (exit 2)", name, code, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %s", name, err, w)
			}
		}
		if !strings.HasPrefix(err.Error(), "trace synth: --rate: ") {
			t.Errorf("%s: error %q, want it to name --rate first", name, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s: left %v in the output directory", name, left)
		}
	}
}
