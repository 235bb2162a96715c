package telemetry

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A GPU that vanishes mid-run (NVML's rows for it empty from then on) and
// one with neither counter nor power leave the recording's energy
// unknown: the summary says which devices and why.
func TestSummarizeGPUSaysWhichDeviceHasNoEnergyAndWhy(t *testing.T) {
	var rounds [][]DeviceSample
	for i := int64(0); i <= 3; i++ {
		gone := dev(1, i*sec, 200, i*200_000, Missing)
		if i >= 2 {
			gone = NewDeviceSample(1)
			gone.T = i * sec
		}
		gone.UUID = "GPU-b"
		rounds = append(rounds, []DeviceSample{
			dev(0, i*sec, 100, i*100_000, Missing),
			gone,
			dev(2, i*sec, math.NaN(), Missing, Missing),
		})
	}
	s := SummarizeGPU(rounds)
	if !math.IsNaN(s.EnergyJ) {
		t.Fatalf("energy %v, want unknown", s.EnergyJ)
	}
	want := "device 1 (GPU-b): its reads stopped at 1.000 s into the recording; device 2: no energy counter and no power reads"
	if got := s.UnknownEnergy(); got != want {
		t.Errorf("UnknownEnergy() = %q, want %q", got, want)
	}
	if s.PerDevice[0].EnergyUnknown != "" {
		t.Errorf("device 0 measured, yet %q", s.PerDevice[0].EnergyUnknown)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"energy_unknown":"its reads stopped at 1.000 s into the recording"`) {
		t.Errorf("JSON lacks why device 1's energy is null: %s", b)
	}
}
