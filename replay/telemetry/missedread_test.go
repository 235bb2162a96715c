package telemetry

import "testing"

// One missed counter read in the middle of a recording: the counter's
// difference between the reads around it still measures the energy.
func TestOneMissedCounterReadKeepsTheCounter(t *testing.T) {
	// 100 J a second by the counter; power reads a wrong 999 W, so a
	// fall back to it shows.
	var rounds [][]DeviceSample
	for i := int64(0); i <= 4; i++ {
		rounds = append(rounds, []DeviceSample{dev(0, i*sec, 999, 1_000_000+i*100_000, Missing)})
	}
	rounds[2][0].EnergyMJ = Missing
	if s := SummarizeGPU(rounds); s.EnergySource != "counter" || !near(s.EnergyJ, 400) {
		t.Errorf("summary: got %v J from %q, want 400 J from the counter", s.EnergyJ, s.EnergySource)
	}
	// A window across the missed read, and one with an end beside it.
	for _, iv := range [][2]int64{{sec / 2, 7 * sec / 2}, {sec, 3 * sec}, {3 * sec / 2, 5 * sec / 2}} {
		want := float64(iv[1]-iv[0]) / 1e9 * 100
		if g := SummarizeGPUBetween(rounds, iv[0], iv[1]); g.Err != nil || g.EnergySource != "counter" || !near(g.EnergyJ, want) {
			t.Errorf("window %v: got %v J from %q (%v), want %v J from the counter", iv, g.EnergyJ, g.EnergySource, g.Err, want)
		}
	}
}
