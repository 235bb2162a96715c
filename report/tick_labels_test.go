package report

import (
	"slices"
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
