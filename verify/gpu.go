package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/internal/atomicfile"
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
	why  string // why there is no recorder
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
		return &gpuSampler{path: path, log: log, why: err.Error()}
	}
	return &gpuSampler{rec: rec, path: path, log: log}
}

// stop ends sampling and sums it up against the replay's output tokens;
// why says why energy per output token is unknown ("" when measured or
// not asked for).
// The samples file goes where the replay's trace went (replay.Outcome):
// beside a written trace; kept under its temporary name, which the
// measure names, beside rows the replay left in a partial file; else
// nowhere.
func (g *gpuSampler) stop(sums []*replay.Summary, written bool, rowsLeft string) (m *GPUMeasure, why string) {
	if g == nil {
		return nil, ""
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
		return nil, g.why
	}
	s := g.rec.Stop()
	if s.Err != nil && !errors.Is(s.Err, telemetry.ErrNoDriver) {
		fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", s.Err)
	}
	csvPath := ""
	switch {
	case written:
		// Samples renamed into place whose directory was not synced are
		// written beside the trace: named, the error logged.
		err := g.rec.Publish()
		if err != nil {
			fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", err)
		}
		if err == nil || atomicfile.OnlyNotSynced(err) {
			csvPath = g.path
		}
	case rowsLeft != "":
		var err error
		csvPath, err = g.rec.Keep()
		if err != nil {
			fmt.Fprintf(g.log, "verify: GPU telemetry: %v\n", err)
		}
		fmt.Fprintf(g.log, "verify: the GPU samples taken beside the rows left in %s are in %s\n", rowsLeft, csvPath)
	default:
		g.rec.Discard()
	}
	if s.Samples == 0 {
		return nil, cmp.Or(errString(s.Err), "no GPU samples")
	}
	if why := s.UnknownEnergy(); why != "" {
		fmt.Fprintf(g.log, "verify: GPU telemetry: the recording's energy is unknown: %s\n", why)
	}
	m = &GPUMeasure{CSV: csvPath, Devices: s.Devices, SampledSeconds: s.WallSeconds, SampledEnergyJ: sec(s.EnergyJ)}
	if s.PeakMemBytes != telemetry.Missing {
		m.PeakMemBytes = &s.PeakMemBytes
	}
	if math.IsNaN(m.SampledSeconds) { // one sampling round spans no time
		m.SampledSeconds = 0
	}
	// The run's figures are its measured window's, as the simulator's.
	if len(sums) == 0 || sums[0].WindowFrom.IsZero() {
		return m, "no measured window (no request succeeded)"
	}
	r := sums[0]
	w := g.rec.Between(r.WindowFrom, r.WindowTo)
	m.WallSeconds = r.Wall.Seconds()
	m.idleDevices = strings.Join(w.IdleDevices, ", ")
	if m.IdleGPUs = w.Idle; w.Idle != "" { // requests completed in the window: those GPUs were not the engine's
		fmt.Fprintf(g.log, "verify: warning: GPU telemetry over the measured window: %s\n", w.Idle)
	}
	if w.Err != nil {
		fmt.Fprintf(g.log, "verify: GPU telemetry over the measured window: %v\n", w.Err)
		return m, "over the measured window: " + w.Err.Error()
	}
	m.EnergyJ, m.EnergySource, m.MeanPowerW = sec(w.EnergyJ), w.EnergySource, sec(w.MeanPowerW)
	switch {
	case m.EnergyJ == nil:
		return m, "no energy reading covers the measured window"
	case r.OutputTokens <= 0:
		return m, "no output tokens"
	}
	m.JPerOutputTok = sec(w.EnergyJ / float64(r.OutputTokens))
	return m, ""
}

// errString is err's message; "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
