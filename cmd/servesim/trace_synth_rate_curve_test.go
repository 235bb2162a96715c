package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// --rate-curve drives the arrivals by a piecewise-linear rate, recorded
// in the metadata; rows follow it (none before the rate turns positive).
func TestSynthRateCurveFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.csv")
	if _, err := run(t, "trace", "synth", "--rate-curve", "0:0,10:0,20:50", "--requests", "200", out); err != nil {
		t.Fatal(err)
	}
	r, err := traces.Import(out, traces.FormatServesim, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows := 0
	for r.Next() {
		if r.At().Arrival < 10e9 {
			t.Errorf("row %s at %d ns, before the curve's rate turns positive at 10 s", r.At().ID, r.At().Arrival)
		}
		rows++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Meta().Extra["arrival"], "poisson(rate_curve=0:0,10:0,20:50)"; rows != 200 || got != want {
		t.Errorf("%d rows, meta arrival %q; want 200 and %q", rows, got, want)
	}
}

func TestSynthRateCurveFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-curve", "0:1,60:2", "--rate", "3"}, "synth: --rate-curve sets the rate over time; --rate conflicts with it"},
		{[]string{"--rate-curve", "0:1,60"}, `synth: --rate-curve: rate curve pair 2 "60": want SECONDS:RATE`},
		{[]string{"--rate-curve", "0:1,60:-2"}, `synth: --rate-curve: point 2 (60:-2): rate -2 is outside`},
		{[]string{"--rate-curve", "5:1"}, `synth: --rate-curve: point 1 (5:1): the curve starts at 0 s`},
	} {
		_, code, err := runCode(t, append(append([]string{"trace", "synth"}, tc.args...), out)...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err = %v; want exit 2 and %q", tc.args, code, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
			os.Remove(out)
		}
	}
}
