package telemetry

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSummarizeGPUBetweenInterpolatesTheCounter(t *testing.T) {
	// Two devices sampled every second for 4 s: device 0 at 100 W (its
	// counter +100 J a second), device 1 at 200 W. The interval 1.5–3.25 s
	// is 1.75 s: 175 J + 350 J, interpolated inside the rounds.
	var rounds [][]DeviceSample
	for i := int64(0); i <= 4; i++ {
		rounds = append(rounds, []DeviceSample{
			dev(0, i*sec, 999, 7_000_000+i*100_000, Missing),
			dev(1, i*sec, 999, i*200_000, Missing),
		})
	}
	g := SummarizeGPUBetween(rounds, 3*sec/2, 13*sec/4)
	if g.Err != nil || g.EnergySource != "counter" || !near(g.EnergyJ, 525) || !near(g.Seconds, 1.75) ||
		!near(g.DeviceSeconds, 3.5) || !near(g.MeanPowerW, 300) {
		t.Errorf("got %+v, want 525 J from the counter over 1.75 s on 2 devices", g)
	}
	// The whole recording gives what SummarizeGPU gives.
	whole, all := SummarizeGPU(rounds), SummarizeGPUBetween(rounds, 0, 4*sec)
	if !near(all.EnergyJ, whole.EnergyJ) || !near(all.DeviceSeconds, whole.DeviceSeconds) {
		t.Errorf("whole interval %v J %v device-s, summary %v J %v device-s", all.EnergyJ, all.DeviceSeconds, whole.EnergyJ, whole.DeviceSeconds)
	}
}

func TestSummarizeGPUBetweenIntegratesPowerWhenTheCounterResets(t *testing.T) {
	// The counter goes back at 2 s (a driver reload): power, 100 W rising
	// to 300 W at 2 s and flat after, is integrated over 1–3 s instead:
	// (200+300)/2 × 1 + 300 × 1 = 550 J.
	rounds := [][]DeviceSample{
		{dev(0, 0, 100, 5_000_000, Missing)},
		{dev(0, sec, 200, 5_200_000, Missing)},
		{dev(0, 2*sec, 300, 1_000, Missing)},
		{dev(0, 3*sec, 300, 301_000, Missing)},
	}
	g := SummarizeGPUBetween(rounds, sec, 3*sec)
	if g.Err != nil || g.EnergySource != "power" || !near(g.EnergyJ, 550) {
		t.Errorf("got %+v, want 550 J from power", g)
	}
	// Before the reset the counter still serves: 0.5–1 s is 100 J.
	if g := SummarizeGPUBetween(rounds, sec/2, sec); g.EnergySource != "counter" || !near(g.EnergyJ, 100) {
		t.Errorf("before the reset: got %+v, want 100 J from the counter", g)
	}
	// Power over a partial segment is interpolated: 0.5–1 s by power is
	// (150+200)/2 × 0.5 = 87.5 J.
	rounds[1][0].EnergyMJ = Missing
	if g := SummarizeGPUBetween(rounds, sec/2, sec); g.EnergySource != "power" || !near(g.EnergyJ, 87.5) {
		t.Errorf("without the counter: got %+v, want 87.5 J from power", g)
	}
}

func TestSummarizeGPUBetweenSaysWhatTheSamplesDoNotCover(t *testing.T) {
	rounds := [][]DeviceSample{
		{dev(0, sec, 100, 0, Missing)},
		{dev(0, 2*sec, 100, 100_000, Missing)},
	}
	for _, iv := range [][2]int64{{0, 2 * sec}, {sec, 3 * sec}} {
		g := SummarizeGPUBetween(rounds, iv[0], iv[1])
		if !math.IsNaN(g.EnergyJ) || g.Err == nil || !strings.Contains(g.Err.Error(), "do not cover") {
			t.Errorf("%v: got %+v, want NaN energy and an error saying the samples do not cover it", iv, g)
		}
	}
	rounds[1][0].PowerW, rounds[1][0].EnergyMJ = math.NaN(), Missing
	if g := SummarizeGPUBetween(rounds, sec, 2*sec); !math.IsNaN(g.EnergyJ) || g.Err == nil {
		t.Errorf("neither counter nor power: got %+v, want NaN energy and an error", g)
	}
}

// clockSource reports 100 W and a counter of 100 J a second of the
// monotonic clock since it began.
type clockSource struct{ t0 time.Time }

func (c clockSource) Sample() ([]DeviceSample, error) {
	s := NewDeviceSample(0)
	s.PowerW, s.EnergyMJ = 100, int64(time.Since(c.t0)/time.Millisecond)*100
	return []DeviceSample{s}, nil
}

func TestGPURecorderBetweenTakesMonotonicTimes(t *testing.T) {
	// The interval is given in time.Time, as a run's clock reads it; the
	// recorder's origin and the interval are on the same clock.
	t0 := time.Now()
	r, err := StartGPU(context.Background(), clockSource{t0}, GPUConfig{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(120 * time.Millisecond)
	to := time.Now()
	time.Sleep(30 * time.Millisecond)
	g := r.Between(from, to)
	want := 100 * to.Sub(from).Seconds()
	if g.Err != nil || g.EnergySource != "counter" || math.Abs(g.EnergyJ-want) > want/10 || !near(g.Seconds, to.Sub(from).Seconds()) {
		t.Errorf("got %+v, want about %v J over %v", g, want, to.Sub(from))
	}
	if g := r.Between(from, to.Add(time.Hour)); g.Err == nil || !math.IsNaN(g.EnergyJ) {
		t.Errorf("an interval past Stop: got %+v, want not covered", g)
	}
	var nilRec *GPURecorder
	if g := nilRec.Between(from, to); !math.IsNaN(g.EnergyJ) || g.Err != ErrNoDriver {
		t.Errorf("nil recorder: %+v", g)
	}
}

// Two rounds stamped alike (rounds gathered from elsewhere, a coarse
// clock) and an instant on them: no energy, not an index out of range.
func TestSummarizeGPUBetweenAnInstantOnRepeatedStamps(t *testing.T) {
	rounds := [][]DeviceSample{
		{dev(0, 0, 100, 0, Missing)},
		{dev(0, sec, 100, 100_000, Missing)},
		{dev(0, sec, 100, 100_000, Missing)},
	}
	if g := SummarizeGPUBetween(rounds, sec, sec); g.Err != nil || g.EnergyJ != 0 {
		t.Errorf("got %+v, want 0 J", g)
	}
}
