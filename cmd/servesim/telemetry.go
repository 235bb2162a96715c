package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/internal/urlshow"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// telemetryFlags are shared by record and record proxy.
func telemetryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "gpu", Usage: "sample local NVIDIA GPUs through NVML to OUT-stem.gpu.csv"},
		&cli.StringFlag{Name: "engine-metrics", Usage: "poll the engine's Prometheus metrics to OUT-stem.engine.csv: its base URL (http://h:8000 or http://h:8000/v1 read /metrics beside /v1) or its metrics URL"},
		&cli.StringFlag{Name: "gpu-devices", Usage: "with --gpu: the GPUs to sample, as NVML indices or UUIDs, comma-separated (default: every GPU of the host)"},
		&cli.DurationFlag{Name: "telemetry-interval", Value: time.Second, Usage: "sampling interval for --gpu and --engine-metrics"},
	}
}

// samplers are the telemetry recorders of one run; either may be nil.
type samplers struct {
	gpu *telemetry.GPURecorder
	eng *telemetry.Scraper
	out string // the trace the samples go beside
	// unsampled are the sample files asked for that this run takes no
	// samples for (no NVIDIA driver, no /metrics): a file there is an
	// earlier run's.
	unsampled []string
	log       *slog.Logger
}

// startSamplers starts what the flags ask for, writing beside out. A
// missing NVIDIA driver or a missing /metrics endpoint is said once and
// leaves those measurements empty.
func startSamplers(c *cli.Context, out string, log *slog.Logger) (*samplers, error) {
	s := &samplers{out: out, log: log}
	interval := c.Duration("telemetry-interval")
	sampling := c.Bool("gpu") || c.String("engine-metrics") != ""
	if c.IsSet("telemetry-interval") && !sampling {
		// It would sample nothing: said, as --gpu-devices without --gpu is.
		return nil, cli.Exit(fmt.Sprintf("%s: --telemetry-interval needs --gpu or --engine-metrics", commandName(c)), 2)
	}
	if interval <= 0 && sampling {
		return nil, cli.Exit(fmt.Sprintf("%s: --telemetry-interval %v: want > 0", commandName(c), interval), 2)
	}
	if u := c.String("engine-metrics"); u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, cli.Exit(fmt.Sprintf("%s: --engine-metrics %q: want the engine's base URL or its metrics URL, http(s)://host[:port][/path]", commandName(c), urlshow.String(u)), 2)
		}
	}
	var devices telemetry.DeviceSelection
	if c.IsSet("gpu-devices") {
		if !c.Bool("gpu") {
			return nil, cli.Exit(fmt.Sprintf("%s: --gpu-devices needs --gpu", commandName(c)), 2)
		}
		var err error
		if devices, err = telemetry.ParseDeviceSelection(c.String("gpu-devices")); err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: --gpu-devices: %v", commandName(c), err), 2)
		}
	}
	var err error
	if c.Bool("gpu") {
		if s.gpu, err = telemetry.StartNVML(c.Context, interval, telemetry.SidecarPath(out, "gpu"), devices); err != nil {
			if !errors.Is(err, telemetry.ErrNoDriver) {
				return nil, err
			}
			log.Warn("no GPU telemetry", "err", err)
			s.unsampled = append(s.unsampled, telemetry.SidecarPath(out, "gpu"))
		}
	}
	if u := c.String("engine-metrics"); u != "" {
		path := telemetry.SidecarPath(out, "engine")
		s.eng, err = telemetry.StartScrapeWith(c.Context, telemetry.ScrapeConfig{URL: u, Interval: interval, Path: path, Logger: log})
		switch {
		case errors.Is(err, telemetry.ErrNoMetrics):
			s.unsampled = append(s.unsampled, path)
		case err != nil:
			s.gpu.Discard()
			return nil, err
		}
	}
	return s, nil
}

// stop ends sampling and prints the summaries, with joules per token from
// the recording's output tokens. The files stay under their temporary
// names until finish.
func (s *samplers) stop(w io.Writer, outputTokens int64) error {
	return s.stopRuns(w, nil, outputTokens)
}

// stopRuns is stop for record's runs: the GPU's whole recording (text
// probes, warm-ups, failures and every run, as its samples file holds
// it), then each run's measured window (traces.Window) with its joules
// per output token, which are the run's figures; the engine's gauges
// likewise, over the recording and then over each run's window.
func (s *samplers) stopRuns(w io.Writer, runs []*replay.Summary, outputTokens int64) error {
	var errs []error
	g, e := s.gpu.Stop(), s.eng.Stop()
	switch {
	case s.gpu != nil && runs == nil:
		fmt.Fprintf(w, "GPU, whole recording (idle time included): %d devices, %s device-s, %s J (%s), %s J/output token\n",
			g.Devices, num(g.DeviceSeconds), num(g.EnergyJ), gpuEnergySource(g), num(g.JoulesPerToken(outputTokens)))
		errs = append(errs, g.Err)
	case s.gpu != nil:
		fmt.Fprintf(w, "GPU, whole recording: %d devices, %s device-s, %s J (%s)\n",
			g.Devices, num(g.DeviceSeconds), num(g.EnergyJ), gpuEnergySource(g))
		errs = append(errs, g.Err)
		for _, r := range runs {
			if r.WindowFrom.IsZero() {
				fmt.Fprintf(w, "GPU, run %d: no measured window (no request succeeded)\n", r.Run)
				continue
			}
			iv := s.gpu.Between(r.WindowFrom, r.WindowTo)
			fmt.Fprintln(w, gpuRunLine(iv, r))
			if iv.Idle != "" { // requests completed in the window: those GPUs were not the engine's
				fmt.Fprintf(w, "GPU, run %d warning: %s\n", r.Run, iv.Idle)
			}
		}
	}
	if s.eng != nil {
		fmt.Fprintln(w, engineLine("engine, whole recording", e))
		errs = append(errs, e.Err)
		for _, r := range runs {
			if r.WindowFrom.IsZero() {
				fmt.Fprintf(w, "engine, run %d: no measured window (no request succeeded)\n", r.Run)
				continue
			}
			fmt.Fprintln(w, engineLine(fmt.Sprintf("engine, run %d measured window", r.Run), s.eng.Between(r.WindowFrom, r.WindowTo)))
		}
	}
	return errors.Join(errs...)
}

// gpuRunLine is a run's line over its measured window. Energy the window's
// samples could not give is said not measured, with why, whatever the
// whole recording's error: dashes alone would read as the run's figures.
func gpuRunLine(iv telemetry.GPUInterval, r *replay.Summary) string {
	head := fmt.Sprintf("GPU, run %d measured window: %s device-s, ", r.Run, num(iv.DeviceSeconds))
	if iv.Err != nil || math.IsNaN(iv.EnergyJ) {
		why := "no energy reading covers it"
		if iv.Err != nil {
			why = iv.Err.Error()
		}
		return head + "energy not measured: " + why
	}
	return head + fmt.Sprintf("%s J (%s), %s J/output token", num(iv.EnergyJ), iv.EnergySource, num(iv.JoulesPerToken(r.OutputTokens)))
}

// gpuEnergySource is how a recording's energy was measured or, when it is
// unknown, which devices left it so and why: "— J ()" alone says neither.
func gpuEnergySource(g telemetry.GPUSummary) string {
	if why := g.UnknownEnergy(); g.EnergySource == "" && why != "" {
		return "unknown: " + why
	}
	return g.EnergySource
}

// engineLine is the summary line, headed head, of an engine's /metrics
// scrapes: which engine's gauges they carried and how many pages were
// read, failed or never asked for, so that a page never read or never
// recognised is not shown as empty figures.
func engineLine(head string, e telemetry.ScrapeSummary) string {
	name := e.Engine
	switch {
	case e.Scrapes == 0:
		name = "no page read"
	case name == "":
		name = "no known engine gauges"
	}
	counts := fmt.Sprintf("%d scrapes", e.Scrapes)
	if e.Failed > 0 {
		counts += fmt.Sprintf(", %d failed", e.Failed)
	}
	if e.Missed > 0 { // fewer rows than the interval asks for, not an engine idle between them
		counts += fmt.Sprintf(", %d polls missed while a slow page came", e.Missed)
	}
	return fmt.Sprintf("%s (%s; %s): running mean %s max %s, waiting mean %s max %s, KV usage max %s",
		head, name, counts, num(e.MeanRunning), num(e.MaxRunning), num(e.MeanWaiting), num(e.MaxWaiting), num(e.MaxKVUsage))
}

// finish gives the sample files the fate of the traces they were taken
// beside, after stop: published once a trace was written (with --repeat,
// one file covers every run, a failed last one's samples included; an
// earlier run's file of a kind asked for but not sampled is removed);
// else kept under their temporary names when the run's rows were kept in
// rowsLeft (the error says where), or removed, so that a run that fails
// leaves an earlier run's files as they were.
func (s *samplers) finish(written bool, rowsLeft string) error {
	switch {
	case written:
		err := errors.Join(s.gpu.Publish(), s.eng.Publish(), s.removeUnsampled())
		if rowsLeft != "" {
			if published := s.published(); len(published) > 0 {
				err = errors.Join(err, fmt.Errorf("the samples taken beside the rows left in %s are in %s, with the written runs'", rowsLeft, strings.Join(published, " and ")))
			}
		}
		return err
	case rowsLeft != "":
		// A kept file whose close failed is named all the same, its
		// error after: it holds what reached the disk.
		gpu, gpuErr := s.gpu.Keep()
		eng, engErr := s.eng.Keep()
		var kept []string
		for _, p := range []string{gpu, eng} {
			if p != "" {
				kept = append(kept, p)
			}
		}
		var where error
		if len(kept) > 0 {
			where = fmt.Errorf("the samples taken beside the rows left in %s are in %s", rowsLeft, strings.Join(kept, " and "))
		}
		return errors.Join(where, gpuErr, engErr)
	}
	s.gpu.Discard()
	s.eng.Discard()
	return nil
}

// published names the sample files that publishing puts beside the trace.
func (s *samplers) published() []string {
	var paths []string
	if s.gpu != nil {
		paths = append(paths, telemetry.SidecarPath(s.out, "gpu"))
	}
	if s.eng != nil {
		paths = append(paths, telemetry.SidecarPath(s.out, "engine"))
	}
	return paths
}

// removeUnsampled removes an earlier run's files of the kinds this run was
// asked for but took no samples of: servesim wrote them for this path, and
// beside the new trace they would read as its samples.
func (s *samplers) removeUnsampled() error {
	var errs []error
	for _, p := range s.unsampled {
		removed, err := telemetry.RemoveStale(p)
		if removed {
			s.log.Info("removed an earlier run's samples: this run took none to go with its trace", "path", p)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// num formats an unmeasured (NaN) value as "—", as the other outputs do.
func num(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4g", v)
}
