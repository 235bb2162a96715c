package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// constGPU is one device drawing a constant 300 W; its energy counter
// follows the wall clock.
type constGPU struct {
	mu    sync.Mutex
	start time.Time
}

func (g *constGPU) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.start.IsZero() {
		g.start = time.Now()
	}
	s := telemetry.NewDeviceSample(0)
	s.Name, s.UUID, s.PowerW, s.MemUsed, s.MemTotal = "fake", "GPU-0", 300, 1<<30, 1<<34
	s.EnergyMJ = 1e9 + time.Since(g.start).Milliseconds()*300
	return []telemetry.DeviceSample{s}, nil
}

// sampleGPUs has Run sample src in place of NVML until the test ends.
func sampleGPUs(t *testing.T, src telemetry.Source) {
	startNVML = func(ctx context.Context, interval time.Duration, path string, _ telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return telemetry.StartGPU(ctx, src, telemetry.GPUConfig{Interval: interval, Path: path})
	}
	t.Cleanup(func() { startNVML = telemetry.StartNVML })
}

// runSampled verifies the first of four candidates on a stub server over
// a trace of n requests 50ms apart, sampling the GPUs every interval.
func runSampled(t *testing.T, n int, interval time.Duration, log io.Writer) CandidateResult {
	t.Helper()
	dir := t.TempDir()
	res, err := Run(context.Background(), Options{
		Candidates: candidates(4), Trace: writeTrace(t, dir, n, 50*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), GPUInterval: interval, Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Candidates[0]
}

// With --gpu, each replay is sampled: energy per output token is measured
// from the GPU's energy, compared with the simulator's, and not gated.
func TestRunSamplesGPUEnergy(t *testing.T) {
	sampleGPUs(t, &constGPU{})
	c := runSampled(t, 10, 10*time.Millisecond, nil)
	if c.Status != StatusOK || c.GPU == nil {
		t.Fatalf("status %s (%s), GPU %+v", c.Status, c.Detail, c.GPU)
	}
	g := c.GPU
	if g.Devices != 1 || g.EnergySource != "counter" || g.MeanPowerW == nil || math.Abs(*g.MeanPowerW-300) > 30 || g.EnergyJ == nil {
		t.Fatalf("GPU %+v: want one device at ~300 W from its energy counter", g)
	}
	if want := *g.EnergyJ / float64(c.Measured.OutputTokens); c.Measured.JPerOutTok == nil || *c.Measured.JPerOutTok != want || want <= 0 {
		t.Errorf("measured J/token %v, want %v", c.Measured.JPerOutTok, want)
	}
	if _, err := os.Stat(g.CSV); err != nil {
		t.Error(err)
	}
	for _, r := range c.Rows {
		if r.Metric == MetricEnergy && (r.RelError == nil || r.Pass != nil || r.Tolerance != 0) {
			t.Errorf("energy row %+v: want an error and no verdict", r)
		}
	}

	// Without a driver the run goes on, energy unmeasured.
	startNVML = func(context.Context, time.Duration, string, telemetry.DeviceSelection) (*telemetry.GPURecorder, error) {
		return nil, telemetry.ErrNoDriver
	}
	if c := runSampled(t, 4, 10*time.Millisecond, nil); c.Status != StatusOK || c.GPU != nil || c.Measured.JPerOutTok != nil {
		t.Errorf("no driver: %+v", c)
	}
}

// Measured KV tokens are a lower bound on the capacity: they raise a
// smaller catalog figure and never lower a larger one.
func TestProfileKVOnlyRaises(t *testing.T) {
	p, err := plan.Parse([]byte(fmt.Sprintf(tinyPlan, 4)))
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(prof *calibrate.Profile) *plan.Resolved {
		t.Helper()
		r, err := p.ResolveMeasured(model.DefaultCatalog(), ProfileKV(prof, "p.json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	catalog := resolve(nil).Capacity.KVBlocks
	prof := &calibrate.Profile{BlockSize: 16, KV: &calibrate.KVCapacity{MaxConcurrentTokens: 2170, Blocks: 136}}
	if r := resolve(prof); r.Capacity.KVBlocks != catalog || r.KVSource != "" {
		t.Errorf("2170 measured tokens changed the catalog's %d blocks to %d (source %q)", catalog, r.Capacity.KVBlocks, r.KVSource)
	}
	prof.KV = &calibrate.KVCapacity{MaxConcurrentTokens: int64(catalog+100) * 16}
	r := resolve(prof)
	if r.Capacity.KVBlocks != catalog+100 || r.CatalogKVBlocks != catalog || r.KVSource != "profile p.json" {
		t.Errorf("more measured tokens than the catalog holds: %d blocks (catalog %d, source %q), want %d from profile p.json",
			r.Capacity.KVBlocks, r.CatalogKVBlocks, r.KVSource, catalog+100)
	}
	if c := r.Capacity; c.MaxTokens != c.KVBlocks*16 || c.MaxConcurrentAtMaxLen != c.KVBlocks/c.BlocksPerMaxLenSeq {
		t.Errorf("raised to %d blocks: max tokens %d, %d sequences at max length; want them derived from the blocks", c.KVBlocks, c.MaxTokens, c.MaxConcurrentAtMaxLen)
	}
}

// The tokens a profile saw held at once on N tensor-parallel devices are
// no lower bound on the cache of fewer devices, whose memory is smaller:
// they raise only plans of at least N devices.
func TestProfileKVOfMoreDevicesLeavesFewer(t *testing.T) {
	resolve := func(devices int, prof *calibrate.Profile) *plan.Resolved {
		t.Helper()
		p, err := plan.Parse([]byte(fmt.Sprintf(tinyPlan, 4)))
		if err != nil {
			t.Fatal(err)
		}
		p.Device.Count = devices
		r, err := p.ResolveMeasured(model.DefaultCatalog(), ProfileKV(prof, "p.json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, two := resolve(1, nil).Capacity.KVBlocks, resolve(2, nil).Capacity.KVBlocks
	// More than the catalog gives two devices, measured on two.
	prof := &calibrate.Profile{TensorParallel: 2, BlockSize: 16, KV: &calibrate.KVCapacity{MaxConcurrentTokens: int64(two+100) * 16}}
	if r := resolve(1, prof); r.Capacity.KVBlocks != one || r.KVSource != "" {
		t.Errorf("1 device with a profile of 2: %d KV blocks (source %q), want the catalog's %d", r.Capacity.KVBlocks, r.KVSource, one)
	}
	if r := resolve(2, prof); r.Capacity.KVBlocks != two+100 || r.KVSource != "profile p.json" {
		t.Errorf("2 devices with a profile of 2: %d KV blocks (source %q), want the profile's %d", r.Capacity.KVBlocks, r.KVSource, two+100)
	}
}

// hostGPUs is a host of n devices, each drawing a constant 300 W.
type hostGPUs struct {
	n     int
	mu    sync.Mutex
	start time.Time
}

func (g *hostGPUs) Sample() ([]telemetry.DeviceSample, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.start.IsZero() {
		g.start = time.Now()
	}
	var out []telemetry.DeviceSample
	for i := range g.n {
		s := telemetry.NewDeviceSample(i)
		s.PowerW, s.EnergyMJ = 300, 1e9+time.Since(g.start).Milliseconds()*300
		out = append(out, s)
	}
	return out, nil
}

// NVML samples every device of the host. On a host of more devices than
// the candidate's plan holds, their energy is not the candidate's: the
// simulator's energy per output token is for the plan's devices, and the
// measured one is left out of the comparison rather than set against it.
func TestGPUEnergyOfOtherDevicesIsNotCompared(t *testing.T) {
	sampleGPUs(t, &hostGPUs{n: 4})
	var log strings.Builder
	c := runSampled(t, 4, 10*time.Millisecond, &log)
	if c.Status != StatusOK || c.GPU == nil || c.GPU.Devices != 4 || c.GPU.JPerOutputTok == nil {
		t.Fatalf("status %s (%s), GPU %+v: want 4 devices measured", c.Status, c.Detail, c.GPU)
	}
	if c.Measured.JPerOutTok != nil {
		t.Errorf("measured J/output token %v of 4 devices compared with a plan of 1 (predicted %v)", *c.Measured.JPerOutTok, c.Predicted.JPerOutTok)
	}
	if !strings.Contains(log.String(), "4 devices") {
		t.Errorf("log does not say why energy is not compared:\n%s", log.String())
	}
}

// The measured energy covers the replay's measured window, as the
// simulator's and the measured device-seconds do: not the samples before
// the first measured send nor after the last token.
func TestGPUMeasureCoversTheMeasuredWindow(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), &constGPU{}, telemetry.GPUConfig{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // warm-up rows
	from := time.Now()
	time.Sleep(100 * time.Millisecond)
	to := time.Now()
	time.Sleep(100 * time.Millisecond) // after the last token
	g := &gpuSampler{rec: rec, log: io.Discard}
	m, why := g.stop([]*replay.Summary{{OutputTokens: 30, WindowFrom: from, WindowTo: to, Wall: to.Sub(from)}}, false, "")
	if why != "" {
		t.Errorf("why = %q for a measured window: want none", why)
	}
	want := 300 * to.Sub(from).Seconds() // 300 W over the window
	if m == nil || m.JPerOutputTok == nil || m.EnergyJ == nil || math.Abs(*m.EnergyJ-want) > want/5 || math.Abs(*m.JPerOutputTok-want/30) > want/150 ||
		m.WallSeconds != to.Sub(from).Seconds() || m.SampledEnergyJ == nil || *m.SampledEnergyJ < 2.5*want {
		t.Fatalf("measure %+v: want about %.4g J over the %v window, %.4g J/output token, and the samples' whole energy beside", m, want, to.Sub(from), want/30)
	}
}

// noMemGPU is a device that reports power but no memory use (as NVML
// may on a MIG instance).
type noMemGPU struct{}

func (noMemGPU) Sample() ([]telemetry.DeviceSample, error) {
	s := telemetry.NewDeviceSample(0)
	s.Name, s.UUID, s.PowerW = "fake", "GPU-0", 300
	return []telemetry.DeviceSample{s}, nil
}

// Peak memory that no sample reported is null in verify.json, as every
// unmeasured figure is, not a number.
func TestGPUMeasurePeakMemoryUnreportedIsNull(t *testing.T) {
	for _, c := range []struct {
		src  telemetry.Source
		want string
	}{{noMemGPU{}, `"peak_mem_bytes":null`}, {&constGPU{}, `"peak_mem_bytes":1073741824`}} {
		rec, err := telemetry.StartGPU(context.Background(), c.src, telemetry.GPUConfig{Interval: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		g := &gpuSampler{rec: rec, log: io.Discard}
		m, _ := g.stop(nil, false, "")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%T: %s, want %s", c.src, b, c.want)
		}
	}
}
