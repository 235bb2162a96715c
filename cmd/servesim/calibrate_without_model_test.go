package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --without names a term of the model being fitted: the dense curve's
// points with --linear, or c0, cp and cd without it, are held at 0
// already, and the held-out error would compare a model with itself.
func TestCalibrateWithoutTermOutsideModel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	live := []string{"calibrate", "--out", out, "--base-url", "http://127.0.0.1:1/v1", "--model", "m"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--linear", "--without", "dense@8"}, `--without dense@8: --linear fits c0, cp and cd instead of the dense curve`},
		{[]string{"--without", "ca,cd"}, `--without cd: the dense curve replaces c0, cp and cd (fitted with --linear)`},
		{[]string{"--without", "C0"}, `--without C0: the dense curve replaces c0, cp and cd (fitted with --linear)`},
	} {
		_, code, err := runCode(t, append(live, c.args...)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", c.args, code, err, c.want)
		}
	}
}
