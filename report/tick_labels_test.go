package report

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
)

func tickLabels(ticks []plot.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

// Axis labels read as a person writes the values: no trailing zeros
// ("1.0", "2400.50"), and millions and more with a suffix rather than
// six zeros or an exponent, on linear and log axes alike.
func TestTickLabelsReadAsWritten(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1, []string{"0", "0.5", "1"}},
		{0, 3400, []string{"0", "1000", "2000", "3000"}},
		{2400, 2401, []string{"2400", "2400.5", "2401"}},
		{1, 1.001, []string{"1", "1.0005", "1.001"}},
		{0, 1e6, []string{"0", "0.5M", "1M"}},
		{0, 3e6, []string{"0", "1M", "2M", "3M"}},
		{0, 1e9, []string{"0", "0.5G", "1G"}},
		{0, 0.0045, []string{"0", "0.002", "0.004"}},
	} {
		if got := tickLabels(readableTicks{}.Ticks(c.lo, c.hi)); !slices.Equal(got, c.want) {
			t.Errorf("linear %v–%v: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	want := []string{"1", "10", "100", "1000", "10000", "100000", "1M", "10M"}
	if got := tickLabels(readableLogTicks{}.Ticks(1, 1e7)); !slices.Equal(got, want) {
		t.Errorf("log 1–1e7: labels %q, want %q", got, want)
	}
}

// A load scale below 1 on a power-of-two axis reads as the whole number it
// divides by: 2^-20 as "1/1048576", not "1/1.04858e+06", which is
// neither exact nor how a scale is written.
func TestPow2TicksBelowOneReadAsWholeReciprocals(t *testing.T) {
	want := []string{"1/1048576", "1/524288", "1/262144", "1/131072", "1/65536"}
	if got := tickLabels(pow2Ticks{}.Ticks(math.Pow(2, -20), math.Pow(2, -16))); !slices.Equal(got, want) {
		t.Errorf("2^-20–2^-16: labels %q, want %q", got, want)
	}
}

// A power-of-two load scale from numfmt.Huge on reads back as itself:
// written to one digit, 2^52 read "5e+15" and 2^53 "9e+15".
func TestPow2TicksPastHugeReadBack(t *testing.T) {
	for _, tk := range (pow2Ticks{}).Ticks(math.Pow(2, 50), math.Pow(2, 53)) {
		if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || v != tk.Value {
			t.Errorf("tick at %v labelled %q", tk.Value, tk.Label)
		}
	}
}
