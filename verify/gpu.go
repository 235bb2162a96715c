package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// startNVML is telemetry.StartNVML; tests put a fake GPU in its place.
var startNVML = telemetry.StartNVML

// gpuSampler is NVML sampling around one replay; a nil one samples
// nothing.
type gpuSampler struct {
	rec  *telemetry.GPURecorder
	path string
	log  io.Writer
}

// startGPU starts NVML sampling to path when opt asks for it. A missing
// driver samples nothing (a sampler without a recorder, which stop knows
// to have taken no samples); it is said once per Run on log, as record
// says it once: the host's driver is the same for every candidate and
// repeat, and the line names none of them.
func startGPU(ctx context.Context, opt *Options, path string, log io.Writer) *gpuSampler {
	if opt.GPUInterval <= 0 {
		return nil
	}
	rec, err := startNVML(ctx, opt.GPUInterval, path, opt.GPUDevices)
	if err != nil {
		if errors.Is(err, telemetry.ErrNoDriver) {
			if !opt.noGPUDriverSaid {
				fmt.Fprintf(log, "verify: no GPU telemetry: %v\n", err)
				opt.noGPUDriverSaid = true
			}
		} else {
			fmt.Fprintf(log, "verify: GPU telemetry: %v\n", err)
		}
		return &gpuSampler{path: path, log: log}
	}
	return &gpuSampler{rec: rec, path: path, log: log}
}

// stop ends sampling and sums it up against the replay's output tokens.
// The samples file goes where the replay's trace went (replay.Outcome):
// beside a written trace; kept under its temporary name, which the
// measure names, beside rows the replay left in a partial file; else
// nowhere.
func (g *gpuSampler) stop(sums []*replay.Summary, written bool, rowsLeft string) *GPUMeasure {
	if g == nil {
		return nil
	}
	if g.rec == nil {
		// Samples were asked for and none taken: an earlier run's file at
		// path would pass for this trace's.
		if written {
			switch removed, err := telemetry.RemoveStale(g.path); {
			case err != nil:
				fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", err)
			case removed:
				fmt.Fprintf(g.log, "verify: removed an earlier run's GPU samples, %s: this run took none to go with its trace\n", g.path)
			}
		}
		return nil
	}
	s := g.rec.Stop()
	if s.Err != nil && !errors.Is(s.Err, telemetry.ErrNoDriver) {
		fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", s.Err)
	}
	csvPath := ""
	switch {
	case written:
		if err := g.rec.Publish(); err != nil {
			fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", err)
		} else {
			csvPath = g.path
		}
	case rowsLeft != "":
		csvPath = g.rec.Keep()
		fmt.Fprintf(g.log, "verify: the GPU samples taken beside the rows left in %s are in %s\n", rowsLeft, csvPath)
	default:
		g.rec.Discard()
	}
	if s.Samples == 0 {
		return nil
	}
	if why := s.UnknownEnergy(); why != "" {
		fmt.Fprintf(g.log, "verify: GPU telemetry: the recording's energy is unknown: %s\n", why)
	}
	m := &GPUMeasure{CSV: csvPath, Devices: s.Devices, SampledSeconds: s.WallSeconds, SampledEnergyJ: sec(s.EnergyJ)}
	if s.PeakMemBytes != telemetry.Missing {
		m.PeakMemBytes = &s.PeakMemBytes
	}
	if math.IsNaN(m.SampledSeconds) { // one sampling round spans no time
		m.SampledSeconds = 0
	}
	// The run's figures are its measured window's, as the simulator's.
	if len(sums) == 0 || sums[0].WindowFrom.IsZero() {
		return m
	}
	r := sums[0]
	w := g.rec.Between(r.WindowFrom, r.WindowTo)
	m.WallSeconds = r.Wall.Seconds()
	if w.Err != nil {
		fmt.Fprintf(g.log, "verify: GPU telemetry over the measured window: %v\n", w.Err)
		return m
	}
	m.EnergyJ, m.EnergySource, m.MeanPowerW = sec(w.EnergyJ), w.EnergySource, sec(w.MeanPowerW)
	if m.EnergyJ != nil && r.OutputTokens > 0 {
		m.JPerOutputTok = sec(w.EnergyJ / float64(r.OutputTokens))
	}
	return m
}
