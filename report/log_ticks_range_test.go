package report

import "testing"

// gonum/plot's log ticks run out to the decades around the range (100 for
// an axis up to 75) and the plot leaves room for each label, even one it
// does not draw beyond the axis: blank space above a log y axis. Every
// tick must lie within the range, and each decade inside it keep its
// label.
func TestLogTicksStayWithinTheirRange(t *testing.T) {
	for _, r := range [][2]float64{{0.033, 75}, {0.05, 50}, {2, 900}, {0.001, 0.1}} {
		labels := 0
		for _, tk := range (readableLogTicks{}).Ticks(r[0], r[1]) {
			if tk.Value < r[0]*(1-1e-9) || tk.Value > r[1]*(1+1e-9) {
				t.Errorf("range %v: tick at %v (%q) outside it", r, tk.Value, tk.Label)
			}
			if tk.Label != "" {
				labels++
			}
		}
		if labels < 2 {
			t.Errorf("range %v: %d labelled ticks, want a label at each of its two or more decades", r, labels)
		}
	}
}
