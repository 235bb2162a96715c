package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Missing marks an integer field of a DeviceSample the device did not
// report (the same value as traces.Missing). Float fields use NaN.
const Missing = -1

// ErrNoDriver means NVML could not be used: no NVIDIA driver, no
// libnvidia-ml.so.1, or a build without cgo.
var ErrNoDriver = errors.New("telemetry: no NVIDIA driver (NVML unavailable)")

// DeviceSample is one reading of one GPU. A field the device did not
// report is Missing (integers) or NaN (floats), never zero.
type DeviceSample struct {
	T           int64 // ns since the recorder's origin; set by the recorder
	Index       int   // NVML device index
	UUID        string
	Name        string
	MemUsed     int64   // bytes
	MemTotal    int64   // bytes
	PowerW      float64 // instantaneous board power, W
	EnergyMJ    int64   // total energy counter since the driver loaded, mJ
	SMUtil      int32   // % of time a kernel ran over the driver's last sample period
	SMClockMHz  int32
	MemClockMHz int32
}

// NewDeviceSample returns a sample with every reading Missing or NaN.
func NewDeviceSample(index int) DeviceSample {
	return DeviceSample{
		Index: index, MemUsed: Missing, MemTotal: Missing, PowerW: math.NaN(),
		EnergyMJ: Missing, SMUtil: Missing, SMClockMHz: Missing, MemClockMHz: Missing,
	}
}

// Source reads every device once. The NVML source is one; tests use fakes.
type Source interface {
	Sample() ([]DeviceSample, error)
}

// GPUSummary summarises a GPU recording. Unknown values are NaN (and
// Devices is 0 with Err set) — never zeros standing in for "unmeasured".
// Its JSON form writes NaN as null.
type GPUSummary struct {
	Devices       int
	Samples       int     // sampling rounds that succeeded
	WallSeconds   float64 // first to last sample
	DeviceSeconds float64 // Devices × WallSeconds
	EnergyJ       float64 // all devices; NaN when any device had neither energy counter nor power (UnknownEnergy says which)
	EnergySource  string  // "counter", "power" (∫ power dt, trapezoid), "mixed", or ""
	MeanPowerW    float64 // EnergyJ / WallSeconds, all devices together
	PeakMemBytes  int64   // largest MemUsed seen on any device; Missing when never reported
	PerDevice     []DeviceSummary
	Err           error // ErrNoDriver, or the first sampling/write error
}

// DeviceSummary is one device's share of a GPUSummary.
type DeviceSummary struct {
	Index        int
	UUID, Name   string
	EnergyJ      float64
	EnergySource string
	MeanPowerW   float64
	PeakMemBytes int64
	// EnergyUnknown says why EnergyJ is NaN ("no energy counter and no
	// power reads", "its reads stopped at 3.000 s into the recording");
	// "" when it was measured.
	EnergyUnknown string
}

// UnknownEnergy names the devices whose energy is unknown and why, joined
// by "; " ("" when every device's was measured): NaN energy alone does not
// say which device left the recording's total unknown.
func (s GPUSummary) UnknownEnergy() string {
	var why []string
	for _, d := range s.PerDevice {
		if d.EnergyUnknown == "" {
			continue
		}
		name := "device " + strconv.Itoa(d.Index)
		if d.UUID != "" {
			name += " (" + d.UUID + ")"
		}
		why = append(why, name+": "+d.EnergyUnknown)
	}
	return strings.Join(why, "; ")
}

// JoulesPerToken is EnergyJ / tokens, or NaN when either is unknown.
func (s GPUSummary) JoulesPerToken(tokens int64) float64 {
	if tokens <= 0 || math.IsNaN(s.EnergyJ) {
		return math.NaN()
	}
	return s.EnergyJ / float64(tokens)
}

// MarshalJSON writes NaN floats as null and Err as its message.
func (s GPUSummary) MarshalJSON() ([]byte, error) {
	type dev struct {
		Index        int      `json:"index"`
		UUID         string   `json:"uuid,omitempty"`
		Name         string   `json:"name,omitempty"`
		EnergyJ      *float64 `json:"energy_j"`
		EnergySource string   `json:"energy_source,omitempty"`
		MeanPowerW   *float64 `json:"mean_power_w"`
		PeakMemBytes *int64   `json:"peak_mem_bytes"`
		// EnergyUnknown: why energy_j is null
		EnergyUnknown string `json:"energy_unknown,omitempty"`
	}
	out := struct {
		Devices       int      `json:"devices"`
		Samples       int      `json:"samples"`
		WallSeconds   *float64 `json:"wall_seconds"`
		DeviceSeconds *float64 `json:"device_seconds"`
		EnergyJ       *float64 `json:"energy_j"`
		EnergySource  string   `json:"energy_source,omitempty"`
		MeanPowerW    *float64 `json:"mean_power_w"`
		PeakMemBytes  *int64   `json:"peak_mem_bytes"`
		PerDevice     []dev    `json:"per_device,omitempty"`
		Err           string   `json:"error,omitempty"`
	}{
		Devices: s.Devices, Samples: s.Samples, WallSeconds: nullNaN(s.WallSeconds),
		DeviceSeconds: nullNaN(s.DeviceSeconds), EnergyJ: nullNaN(s.EnergyJ), EnergySource: s.EnergySource,
		MeanPowerW: nullNaN(s.MeanPowerW), PeakMemBytes: nullMissing(s.PeakMemBytes),
	}
	for _, d := range s.PerDevice {
		out.PerDevice = append(out.PerDevice, dev{d.Index, d.UUID, d.Name, nullNaN(d.EnergyJ), d.EnergySource, nullNaN(d.MeanPowerW), nullMissing(d.PeakMemBytes), d.EnergyUnknown})
	}
	if s.Err != nil {
		out.Err = s.Err.Error()
	}
	return json.Marshal(out)
}

func nullNaN(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func nullMissing(v int64) *int64 {
	if v == Missing {
		return nil
	}
	return &v
}

func emptyGPUSummary(err error) GPUSummary {
	n := math.NaN()
	return GPUSummary{WallSeconds: n, DeviceSeconds: n, EnergyJ: n, MeanPowerW: n, PeakMemBytes: Missing, Err: err}
}

// deviceAcc accumulates one device's samples: running sums for the
// recording, and each sample's point for the windows asked of it later.
type deviceAcc struct {
	index      int
	uuid, name string
	firstT     int64
	lastT      int64
	n          int
	// energy counter: the difference of its reads at the recording's
	// ends, so a read missed in between does not matter
	firstE, lastE int64 // the first sample's and the last read's
	eOK           bool  // the first sample had the counter, and no read went back
	lastHasE      bool  // the last sample had the counter
	// power integral (trapezoid over consecutive power reads, so that a
	// read missed in between is bridged, as a missed counter read is)
	integralJ float64
	prevT     int64   // the last power read's
	prevP     float64 // the last power read
	pOK       bool    // the first sample had power
	lastHasP  bool    // the last sample had power
	peakMem   int64
	// readT is the last sample with a counter or power read; read says
	// there was one, lastRead that the last sample was one.
	readT          int64
	read, lastRead bool
	// points are the energy readings, kept so that energy over a
	// sub-interval (a run's measured window) can be computed after Stop.
	points []energyPoint
}

// energyPoint is one sample's energy readings, with the activity that
// tells an idle device over a sub-interval: 40 bytes a device a round.
type energyPoint struct {
	t      int64
	energy int64   // mJ; Missing when not reported
	power  float64 // W; NaN when not reported
	mem    int64   // memory used, bytes; Missing when not reported
	smUtil int32   // %; Missing when not reported
}

func (a *deviceAcc) add(s DeviceSample) {
	if a.n == 0 {
		a.index, a.uuid, a.name = s.Index, s.UUID, s.Name
		a.firstT, a.firstE = s.T, s.EnergyMJ
		a.eOK, a.pOK, a.peakMem = s.EnergyMJ != Missing, !math.IsNaN(s.PowerW), Missing
	} else {
		if s.EnergyMJ != Missing && s.EnergyMJ < a.lastE {
			a.eOK = false
		}
		if a.pOK && !math.IsNaN(s.PowerW) {
			a.integralJ += (a.prevP + s.PowerW) / 2 * float64(s.T-a.prevT) / 1e9
		}
	}
	a.n++
	a.points = append(a.points, energyPoint{s.T, s.EnergyMJ, s.PowerW, s.MemUsed, s.SMUtil})
	a.lastT, a.lastHasE = s.T, s.EnergyMJ != Missing
	if a.lastHasE {
		a.lastE = s.EnergyMJ
	}
	if a.lastHasP = !math.IsNaN(s.PowerW); a.lastHasP {
		a.prevT, a.prevP = s.T, s.PowerW
	}
	if a.lastRead = s.EnergyMJ != Missing || !math.IsNaN(s.PowerW); a.lastRead {
		a.read, a.readT = true, s.T
	}
	if s.MemUsed != Missing && s.MemUsed > a.peakMem {
		a.peakMem = s.MemUsed
	}
}

// energy returns the device's energy in J over its samples and how it was
// measured, preferring the hardware counter.
func (a *deviceAcc) energy() (float64, string) {
	switch {
	case a.n >= 2 && a.eOK && a.lastHasE:
		return float64(a.lastE-a.firstE) / 1e3, "counter"
	case a.n >= 2 && a.pOK && a.lastHasP:
		return a.integralJ, "power"
	}
	return math.NaN(), ""
}

// energyUnknown says why energy has none to give: "" when it has one.
func (a *deviceAcc) energyUnknown() string {
	if e, _ := a.energy(); !math.IsNaN(e) {
		return ""
	}
	switch {
	case !a.read:
		return "no energy counter and no power reads"
	case a.n < 2:
		return "a single sample"
	case !a.lastRead: // the device stopped answering (it fell off the bus)
		return fmt.Sprintf("its reads stopped at %.3f s into the recording", float64(a.readT)/1e9)
	}
	return "neither an energy counter read at both ends that never went back nor a power read at both ends"
}

// gpuAcc accumulates rounds of samples over all devices.
type gpuAcc struct {
	devs   []*deviceAcc
	byIdx  map[int]*deviceAcc
	rounds int
	firstT int64
	lastT  int64
}

func (g *gpuAcc) addRound(t int64, round []DeviceSample) {
	if g.byIdx == nil {
		g.byIdx = map[int]*deviceAcc{}
	}
	if g.rounds == 0 {
		g.firstT = t
	}
	g.rounds++
	g.lastT = t
	for _, s := range round {
		s.T = t
		a := g.byIdx[s.Index]
		if a == nil {
			a = &deviceAcc{}
			g.byIdx[s.Index] = a
			g.devs = append(g.devs, a)
		}
		a.add(s)
	}
}

func (g *gpuAcc) summary() GPUSummary {
	s := emptyGPUSummary(nil)
	s.Devices, s.Samples = len(g.devs), g.rounds
	if g.rounds == 0 || len(g.devs) == 0 {
		return s
	}
	if g.rounds >= 2 {
		s.WallSeconds = float64(g.lastT-g.firstT) / 1e9
		s.DeviceSeconds = float64(len(g.devs)) * s.WallSeconds
	}
	total := 0.0
	sources := map[string]bool{}
	for _, a := range g.devs {
		e, src := a.energy()
		d := DeviceSummary{Index: a.index, UUID: a.uuid, Name: a.name, EnergyJ: e, EnergySource: src,
			MeanPowerW: math.NaN(), PeakMemBytes: a.peakMem, EnergyUnknown: a.energyUnknown()}
		if span := float64(a.lastT-a.firstT) / 1e9; span > 0 && !math.IsNaN(e) {
			d.MeanPowerW = e / span
		}
		if a.peakMem > s.PeakMemBytes {
			s.PeakMemBytes = a.peakMem
		}
		total += e // NaN poisons the total, as it should
		sources[src] = true
		s.PerDevice = append(s.PerDevice, d)
	}
	if !math.IsNaN(total) {
		s.EnergyJ, s.EnergySource = total, energySource(sources)
		if s.WallSeconds > 0 {
			s.MeanPowerW = total / s.WallSeconds
		}
	}
	return s
}

// energySource labels energy summed over devices measured by sources.
func energySource(sources map[string]bool) string {
	switch {
	case len(sources) > 1:
		return "mixed"
	case sources["counter"]:
		return "counter"
	}
	return "power"
}

// GPUInterval is the GPUs' account of a time interval within a recording
// (a run's measured window). Unknown values are NaN with Err saying why.
type GPUInterval struct {
	Devices       int
	Seconds       float64 // the interval's length
	DeviceSeconds float64 // Devices × Seconds
	EnergyJ       float64 // all devices; NaN when any device's samples do not cover the interval
	EnergySource  string  // as GPUSummary's: "counter", "power", "mixed", or ""
	MeanPowerW    float64 // EnergyJ / Seconds
	// Idle names the devices that did no work over the interval, and the
	// interval: over a run's measured window, in which requests completed,
	// such a device is almost surely not one the engine ran on, and its
	// idle power is counted as the run's energy. "" when every device
	// worked or did not report its SM utilization, or no sample fell inside
	// the interval.
	Idle string
	// IdleDevices names the devices of Idle alone ("device 3 (GPU-…)"),
	// the same over every window of one host; nil when Idle is "".
	IdleDevices []string
	Err         error
}

// JoulesPerToken is EnergyJ / tokens, or NaN when either is unknown.
func (s GPUInterval) JoulesPerToken(tokens int64) float64 {
	if tokens <= 0 || math.IsNaN(s.EnergyJ) {
		return math.NaN()
	}
	return s.EnergyJ / float64(tokens)
}

// between is the device's energy from from to to (ns on the samples' time
// base): the energy counter interpolated linearly at both ends between
// its nearest reads when there are reads at or before from and at or
// after to and none goes back (a driver reload resets it; a read missed
// in between does not matter), else the trapezoid integral of power over
// the interval between the power reads nearest its ends (a read missed in
// between is bridged, as the counter's is). An interval the samples
// do not reach on both sides is not measured: nothing is extrapolated.
func (a *deviceAcc) between(from, to int64) (float64, string, error) {
	p := a.points
	if !a.covers(from, to) {
		return math.NaN(), "", fmt.Errorf("telemetry: device %d: its samples (%s) do not cover the interval %.3f–%.3f s",
			a.index, a.span(), float64(from)/1e9, float64(to)/1e9)
	}
	lo, hi := a.around(from, to)
	// The counter's reads nearest the interval's ends, ga at or before
	// from and gb at or after to, measure it: a read missed in between
	// does not matter, one that goes back (a driver reload) does.
	ga, gb := lo, hi
	for ga >= 0 && p[ga].energy == Missing {
		ga--
	}
	for gb < len(p) && p[gb].energy == Missing {
		gb++
	}
	// Likewise the power reads nearest the ends, pa and pb.
	pa, pb := lo, hi
	for pa >= 0 && math.IsNaN(p[pa].power) {
		pa--
	}
	for pb < len(p) && math.IsNaN(p[pb].power) {
		pb++
	}
	counter, power := ga >= 0 && gb < len(p), pa >= 0 && pb < len(p)
	for i, last := max(ga, 0), int64(Missing); counter && i <= gb; i++ {
		if p[i].energy == Missing {
			continue
		}
		counter = p[i].energy >= last
		last = p[i].energy
	}
	powerAt := func(i, k int, t int64) float64 { // power interpolated at t in [p[i].t, p[k].t]
		d := p[k].t - p[i].t
		if d <= 0 {
			return p[i].power
		}
		f := float64(t-p[i].t) / float64(d)
		return p[i].power + f*(p[k].power-p[i].power)
	}
	// counterAt is the counter interpolated at t between the reads around it.
	counterAt := func(t int64) float64 {
		i := ga
		for j := i + 1; j <= gb && p[j].t <= t; j++ {
			if p[j].energy != Missing {
				i = j
			}
		}
		k := i + 1
		for k < gb && p[k].energy == Missing {
			k++
		}
		if k > gb || p[k].t <= p[i].t {
			return float64(p[i].energy)
		}
		f := float64(t-p[i].t) / float64(p[k].t-p[i].t)
		return float64(p[i].energy) + f*float64(p[k].energy-p[i].energy)
	}
	switch {
	case counter:
		return (counterAt(to) - counterAt(from)) / 1e3, "counter", nil
	case power:
		j := 0.0
		for i := pa; i < pb; {
			k := i + 1 // the next power read; p[pb] is one
			for math.IsNaN(p[k].power) {
				k++
			}
			t0, t1 := max(p[i].t, from), min(p[k].t, to)
			if t1 > t0 {
				j += (powerAt(i, k, t0) + powerAt(i, k, t1)) / 2 * float64(t1-t0) / 1e9
			}
			i = k
		}
		return j, "power", nil
	}
	switch {
	case !a.read:
		return math.NaN(), "", fmt.Errorf("telemetry: device %d: no energy counter and no power reads", a.index)
	case a.readT < to: // the device stopped answering before the interval ended
		return math.NaN(), "", fmt.Errorf("telemetry: device %d: its reads stopped at %.3f s, before the interval's end (%.3f s)",
			a.index, float64(a.readT)/1e9, float64(to)/1e9)
	}
	return math.NaN(), "", fmt.Errorf("telemetry: device %d reported neither an energy counter that never went back nor power over the interval", a.index)
}

// covers says whether the device's samples reach from from to to.
func (a *deviceAcc) covers(from, to int64) bool {
	p := a.points
	return len(p) >= 2 && from >= p[0].t && to <= p[len(p)-1].t
}

// around returns lo, the last sample at or before from, and hi > lo, the
// first at or after to, for an interval the samples cover.
func (a *deviceAcc) around(from, to int64) (lo, hi int) {
	p := a.points
	lo, hi = 0, len(p)-1
	for lo+1 < len(p) && p[lo+1].t <= from {
		lo++
	}
	for hi-1 >= 0 && p[hi-1].t >= to {
		hi--
	}
	if hi <= lo { // an instant on a sample (hi < lo: on several stamped alike)
		hi = min(lo+1, len(p)-1)
		if hi == lo {
			lo--
		}
	}
	return lo, hi
}

// idle says whether the device did no work from from to to: each sample
// whose utilization period falls in the interval (those after from, up
// to the first at or after to) read 0% SM utilization, and the memory
// used read from the last sample before it on did not change. A device
// that left utilization unreported in any of them is not judged, nor is
// an interval with no sample inside it: the next sample's reading covers
// the driver's last sample period, which can lie wholly after the end.
func (a *deviceAcc) idle(from, to int64) bool {
	if !a.covers(from, to) {
		return false
	}
	p := a.points
	lo, hi := a.around(from, to)
	if p[lo+1].t > to {
		return false
	}
	mem := int64(Missing)
	for i := lo; i <= hi; i++ {
		if i > lo && p[i].smUtil != 0 { // Missing included: unknown is not idle
			return false
		}
		switch {
		case p[i].mem == Missing:
		case mem == Missing:
			mem = p[i].mem
		case p[i].mem != mem:
			return false
		}
	}
	return true
}

// idleDevices names the devices idle from from to to (nil when none was).
func (g *gpuAcc) idleDevices(from, to int64) []string {
	var idle []string
	for _, a := range g.devs {
		if !a.idle(from, to) {
			continue
		}
		name := "device " + strconv.Itoa(a.index)
		if a.uuid != "" {
			name += " (" + a.uuid + ")"
		}
		idle = append(idle, name)
	}
	return idle
}

// idleNote says that the idle devices sat idle from from to to, and what
// follows ("" when none did).
func idleNote(idle []string, from, to int64) string {
	if len(idle) == 0 {
		return ""
	}
	return fmt.Sprintf("%s read 0%% SM utilization and unchanged memory used over %.3f–%.3f s into the recording, while requests completed: "+
		"probably not a GPU the engine ran on, so any energy measured over the window is its idle power (select the engine's GPUs by NVML index or UUID)",
		strings.Join(idle, ", "), float64(from)/1e9, float64(to)/1e9)
}

func (a *deviceAcc) span() string {
	if len(a.points) == 0 {
		return "none"
	}
	return fmt.Sprintf("%.3f–%.3f s", float64(a.points[0].t)/1e9, float64(a.points[len(a.points)-1].t)/1e9)
}

// between is every device's account of the interval from from to to.
func (g *gpuAcc) between(from, to int64) GPUInterval {
	n := math.NaN()
	s := GPUInterval{Devices: len(g.devs), Seconds: n, DeviceSeconds: n, EnergyJ: n, MeanPowerW: n}
	if to < from {
		s.Err = fmt.Errorf("telemetry: interval ends (%.3f s) before it starts (%.3f s)", float64(to)/1e9, float64(from)/1e9)
		return s
	}
	if len(g.devs) == 0 {
		s.Err = errors.New("telemetry: no GPU samples")
		return s
	}
	s.Seconds = float64(to-from) / 1e9
	s.DeviceSeconds = float64(len(g.devs)) * s.Seconds
	s.IdleDevices = g.idleDevices(from, to)
	s.Idle = idleNote(s.IdleDevices, from, to)
	total := 0.0
	sources := map[string]bool{}
	for _, a := range g.devs {
		e, src, err := a.between(from, to)
		if err != nil {
			s.Err = err
			return s
		}
		total += e
		sources[src] = true
	}
	s.EnergyJ, s.EnergySource = total, energySource(sources)
	if s.Seconds > 0 {
		s.MeanPowerW = total / s.Seconds
	}
	return s
}

// SummarizeGPUBetween is SummarizeGPU over the interval from from to to
// (ns, on the samples' T) only: what GPURecorder.Between computes.
func SummarizeGPUBetween(rounds [][]DeviceSample, from, to int64) GPUInterval {
	var g gpuAcc
	for _, r := range rounds {
		if len(r) > 0 {
			g.addRound(r[0].T, r)
		}
	}
	return g.between(from, to)
}

// SummarizeGPU summarises rounds of samples, each round stamped with the
// T of its samples. It is what GPURecorder.Stop computes, for callers with
// samples from elsewhere.
func SummarizeGPU(rounds [][]DeviceSample) GPUSummary {
	var g gpuAcc
	for _, r := range rounds {
		if len(r) > 0 {
			g.addRound(r[0].T, r)
		}
	}
	return g.summary()
}

// GPUConfig configures StartGPU. Zero fields take the defaults named.
type GPUConfig struct {
	Interval time.Duration   // default 1s
	Path     string          // CSV output, put there by Publish; "" writes nothing
	Origin   time.Time       // T counts from here; default: when sampling starts
	Devices  DeviceSelection // the devices sampled; nil: every one the source reads
	Logger   *slog.Logger    // default slog.Default()
}

// GPURecorder samples a Source at an interval, writes each sample to a CSV
// file and keeps a running summary. Stop ends it; then Publish puts the
// file at its path, or Discard or Keep leaves the path as it was.
type GPURecorder struct {
	src    Source
	cfg    GPUConfig
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
	closer func() error

	// Owned by the sampling goroutine until done is closed.
	acc       gpuAcc
	out       *sidecar
	err       error
	failed    int
	loggedErr bool
	sum       GPUSummary
	// host is the first round sampled before the selection, when there is
	// one: every GPU of the host, to check the selection against.
	host []DeviceSample
}

// StartNVML samples the NVIDIA GPUs devices selects (every one when nil)
// through NVML every interval and writes the samples to the CSV file that
// Publish puts at path ("" for none).
//
// Without a usable driver it returns a nil *GPURecorder and an error
// wrapping ErrNoDriver; say so once and carry on: a nil recorder's Stop is
// safe and returns a summary whose measurements are all NaN.
func StartNVML(ctx context.Context, interval time.Duration, path string, devices DeviceSelection) (*GPURecorder, error) {
	src, closeFn, err := OpenNVML()
	if err != nil {
		return nil, err
	}
	r, err := StartGPU(ctx, src, GPUConfig{Interval: interval, Path: path, Devices: devices})
	if err != nil {
		closeFn()
		return nil, err
	}
	r.closer = closeFn
	return r, nil
}

// StartGPU samples src once right away, then every cfg.Interval until ctx
// ends or Stop is called; Stop takes one last sample.
func StartGPU(ctx context.Context, src Source, cfg GPUConfig) (*GPURecorder, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Origin.IsZero() {
		cfg.Origin = time.Now()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &GPURecorder{src: src, cfg: cfg, done: make(chan struct{})}
	if cfg.Path != "" {
		out, err := createSidecar(cfg.Path, gpuHeader)
		if err != nil {
			return nil, err
		}
		r.out = out
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.sample()
	// A selected device the host lacks (a mistyped index or UUID) would
	// record nothing of it: refuse it before the run.
	if err := r.CheckDevices(r.cfg.Devices); err != nil {
		r.cancel()
		r.out.discard()
		return nil, err
	}
	go r.loop(ctx)
	return r, nil
}

// CheckDevices says which device of sel, if any, the host's first round
// of samples lacks: a mistyped index or UUID would select nothing. It is
// nil when no round has been sampled.
func (r *GPURecorder) CheckDevices(sel DeviceSelection) error {
	if r.host == nil {
		return nil
	}
	for _, f := range sel {
		if !slices.ContainsFunc(r.host, func(s DeviceSample) bool { return DeviceSelection{f}.Has(s.Index, s.UUID) }) {
			return fmt.Errorf("telemetry: device %q is not one of the host's GPUs (%s): want an NVML index or UUID of one of them", f, r.hostNames())
		}
	}
	return nil
}

// hostNames lists the host's GPUs as "index uuid".
func (r *GPURecorder) hostNames() string {
	names := make([]string, len(r.host))
	for i, s := range r.host {
		names[i] = strconv.Itoa(s.Index) + " " + s.UUID
	}
	return strings.Join(names, ", ")
}

func (r *GPURecorder) loop(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sample()
		}
	}
}

var gpuHeader = []string{"t_ns", "unix_ns", "index", "uuid", "name", "mem_used_bytes", "mem_total_bytes",
	"power_w", "energy_mj", "sm_util_pct", "sm_clock_mhz", "mem_clock_mhz"}

func (r *GPURecorder) sample() {
	now := time.Now()
	round, err := r.src.Sample()
	if err == nil && r.host == nil {
		r.host = slices.Clone(round) // for CheckDevices
	}
	if err == nil && r.cfg.Devices != nil {
		kept := round[:0:0]
		for _, s := range round {
			if r.cfg.Devices.Has(s.Index, s.UUID) {
				kept = append(kept, s)
			}
		}
		round = kept
	}
	if err != nil {
		r.failed++
		if !r.loggedErr {
			r.loggedErr = true
			r.cfg.Logger.Warn("GPU sampling failed (logged once)", "err", err)
		}
		return
	}
	t := int64(now.Sub(r.cfg.Origin))
	r.acc.addRound(t, round)
	if r.out == nil || r.err != nil {
		return
	}
	unix := strconv.FormatInt(now.UnixNano(), 10)
	rows := make([][]string, 0, len(round))
	for _, s := range round {
		rows = append(rows, []string{
			strconv.FormatInt(t, 10), unix, strconv.Itoa(s.Index), s.UUID, s.Name,
			formatInt(s.MemUsed), formatInt(s.MemTotal), formatFloat(s.PowerW), formatInt(s.EnergyMJ),
			formatInt(int64(s.SMUtil)), formatInt(int64(s.SMClockMHz)), formatInt(int64(s.MemClockMHz)),
		})
	}
	r.err = r.out.write(rows...)
}

func formatInt(v int64) string {
	if v == Missing {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// Stop takes a last sample, syncs the CSV file (still under its temporary
// name), closes NVML and returns the summary. It is safe on a nil
// *GPURecorder (all-NaN summary with ErrNoDriver) and more than once.
func (r *GPURecorder) Stop() GPUSummary {
	if r == nil {
		return emptyGPUSummary(ErrNoDriver)
	}
	r.once.Do(func() {
		r.cancel()
		<-r.done
		r.sample()
		r.sum = r.acc.summary()
		r.sum.Err = r.err
		if err := r.out.sync(); err != nil && r.sum.Err == nil {
			r.sum.Err = err
		}
		if r.closer != nil {
			if err := r.closer(); err != nil && r.sum.Err == nil {
				r.sum.Err = fmt.Errorf("telemetry: %w", err)
			}
		}
		if r.sum.Err == nil && r.acc.rounds == 0 && r.failed > 0 {
			r.sum.Err = errors.New("telemetry: every GPU sample failed")
		}
	})
	return r.sum
}

// Between stops the recorder and returns the GPUs' account of the
// interval from from to to, times on the monotonic clock (time.Now's, as
// the samples are stamped; not the CSV's unix_ns, which the wall clock
// can step). An interval the samples do not cover has NaN energy and Err
// set. Idle names a device that did no work over it: call it on an
// interval in which requests completed. On a nil recorder everything is
// NaN, with ErrNoDriver.
func (r *GPURecorder) Between(from, to time.Time) GPUInterval {
	if r == nil {
		n := math.NaN()
		return GPUInterval{Seconds: n, DeviceSeconds: n, EnergyJ: n, MeanPowerW: n, Err: ErrNoDriver}
	}
	r.Stop()
	return r.acc.between(int64(from.Sub(r.cfg.Origin)), int64(to.Sub(r.cfg.Origin)))
}

// Publish stops the recorder and puts its CSV file at its path, replacing
// an earlier run's: call it once the trace the samples belong with is in
// place. It does nothing on a nil recorder or one without a file.
func (r *GPURecorder) Publish() error {
	if r == nil {
		return nil
	}
	r.Stop()
	return r.out.publish()
}

// Discard stops the recorder and removes its CSV file, leaving an earlier
// run's at the path: for a run whose trace was not written.
func (r *GPURecorder) Discard() {
	if r == nil {
		return
	}
	r.Stop()
	r.out.discard()
}

// Keep stops the recorder and leaves its CSV file under its temporary
// name, which it returns ("" without a file): for the samples of a run
// whose trace was not written but whose rows were kept. Its error is the
// file's close error, which names it.
func (r *GPURecorder) Keep() (string, error) {
	if r == nil {
		return "", nil
	}
	r.Stop()
	return r.out.keep()
}
