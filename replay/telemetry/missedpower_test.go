package telemetry

import (
	"math"
	"testing"
)

// A device without an energy counter whose power read failed once in the
// middle keeps its energy: the trapezoid bridges the missed read, as it
// bridges a round that failed whole and as the counter bridges a missed
// counter read. One missed read left the recording's energy and every
// window over it unknown.
func TestOneMissedPowerReadIsBridged(t *testing.T) {
	rounds := [][]DeviceSample{
		{dev(0, 0, 100, Missing, Missing)},
		{dev(0, sec, math.NaN(), Missing, Missing)},
		{dev(0, 2*sec, 300, Missing, Missing)},
		{dev(0, 3*sec, 300, Missing, Missing)},
	}
	// (100+300)/2*2 + 300*1 = 700 J over the recording.
	if s := SummarizeGPU(rounds); s.EnergySource != "power" || !near(s.EnergyJ, 700) || s.UnknownEnergy() != "" {
		t.Errorf("recording: got %v J from %q (%s), want 700 J from power", s.EnergyJ, s.EnergySource, s.UnknownEnergy())
	}
	// 0.5–2.5 s: power 150 → 300 W over 1.5 s, then 300 W for 0.5 s.
	if g := SummarizeGPUBetween(rounds, sec/2, 5*sec/2); g.Err != nil || g.EnergySource != "power" || !near(g.EnergyJ, 337.5+150) {
		t.Errorf("window: got %+v, want 487.5 J from power", g)
	}
	// A last read missed is not bridged: nothing is extrapolated.
	rounds[3][0].PowerW = math.NaN()
	if s := SummarizeGPU(rounds); !math.IsNaN(s.EnergyJ) {
		t.Errorf("last read missed: got %v J, want NaN", s.EnergyJ)
	}
}
