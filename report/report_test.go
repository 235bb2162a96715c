package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

func handRun(name string, ttft float64) *Run {
	lat := &Latencies{}
	for i := 1; i <= 100; i++ {
		lat.TTFT = append(lat.TTFT, ttft*float64(i)/100)
		lat.E2E = append(lat.E2E, 2*ttft*float64(i)/100)
	}
	s := &sim.Summary{Policy: "continuous", Requests: 100, Completed: 100, InputTokens: 1e4, OutputTokens: 1e4,
		Makespan: 100, DeviceSeconds: 100, ReqPerSec: 1, OutputTokPerSec: 100, EnergyJoules: 1e6,
		TTFT: sim.Dist{N: 100, P50: ttft / 2, P99: ttft}, E2E: sim.Dist{N: 100, P99: 2 * ttft},
		KV: sim.KVStats{TotalBlocks: 100, MeanUtil: .2, MaxUtil: .5, Series: []sim.KVPoint{{T: 0, Used: 10}, {T: 50, Used: 50}}}}
	res := &plan.Result{Name: name, Summary: s, Outcome: "ok",
		Cost: model.Prices{DevicePerHour: 3.6, EnergyPerKWh: 0.1}.Cost(model.Usage{Devices: 1, WallSeconds: 100, EnergyJoules: 1e6, InputTokens: 1e4, OutputTokens: 1e4})}
	r := resultRun(res)
	r.Lat = lat
	return r
}

func TestBuildHTMLAndMarkdown(t *testing.T) {
	in := &Inputs{Sources: []string{"hand-made <runs>"}, Runs: []*Run{handRun("a<b>", 0.1), handRun("slow", 0.4)}}
	d, err := Build("test & report", in)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range d.Sections {
		titles = append(titles, s.Title)
	}
	if got := strings.Join(titles, "|"); got != "Comparison|Latency distributions|Pareto front|KV cache utilization|Cost breakdown" {
		t.Errorf("sections %s", got)
	}
	html, err := renderHTML(d)
	if err != nil {
		t.Fatal(err)
	}
	h := string(html)
	for _, bad := range []string{"http://", "https://", "<script", "a<b>", "<?xml"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML holds %q", bad)
		}
	}
	for _, want := range []string{"a&lt;b&gt;", "test &amp; report", "<svg", "$12.78"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, d, "", ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "figures omitted") || !strings.Contains(md.String(), "| a&lt;b&gt; |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "r.md"), d); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "r_files", "kv-utilization.svg"))
	if err != nil || !bytes.Contains(svg, []byte(`xmlns="http://www.w3.org/2000/svg"`)) {
		t.Errorf("standalone SVG needs its namespace: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "r.pdf"), d); err == nil {
		t.Error("a .pdf report should be refused")
	}
	if _, err := Build("empty", &Inputs{}); err == nil {
		t.Error("an empty report should be an error")
	}
}

// extraSection shows that a new section type plugs in.
type extraSection struct{}

func (extraSection) Title() string { return "Verification" }
func (extraSection) Blocks(in *Inputs) ([]Block, error) {
	return []Block{&Text{"predicted vs measured"}}, nil
}

func TestCustomSection(t *testing.T) {
	d, err := Build("x", &Inputs{Runs: []*Run{handRun("a", 1)}}, append(DefaultSections(), extraSection{})...)
	if err != nil {
		t.Fatal(err)
	}
	last := d.Sections[len(d.Sections)-1]
	if last.ID != "verification" || len(last.Blocks) != 1 {
		t.Errorf("last section %+v", last)
	}
}

func TestCompareFlags(t *testing.T) {
	a, b := handRun("a", 1), handRun("b", 1)
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 0 {
		t.Errorf("equal runs: %d regressions", n)
	}
	b.Metrics.TTFTP99 = 1.2
	b.Metrics.TTFTP50 = 5 // not gated
	cs := compareRuns(t, a, b, 0.1)
	if n := Regressions(cs); n != 1 {
		t.Errorf("P99 TTFT +20%%: %d regressions", n)
	}
	b = handRun("b", 1)
	b.Metrics.ReqPerSec, b.Metrics.USDPerMOutEst = 2, a.Metrics.USDPerMOutEst/2
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 0 {
		t.Errorf("improvement flagged: %d", n)
	}
	b.Metrics.ReqPerSec = 0.85
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 1 {
		t.Errorf("throughput −15%%: %d regressions", n)
	}
	b = handRun("b", 1)
	b.Metrics.TTFTP99 = 1.1 // exactly the threshold, though 0.1/1.0 rounds to 0.10000000000000009
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 0 {
		t.Errorf("P99 TTFT +10%%, threshold 10%%: %d regressions, want none (a regression is more than the threshold)", n)
	}
	b = handRun("b", 1)
	b.Metrics.E2EP99 = math.NaN()
	if n := Regressions(compareRuns(t, a, b, 0.1)); n != 0 {
		t.Errorf("unknown metric flagged: %d", n)
	}
}

func TestHelpers(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if Quantile(v, 0.5) != 5 || Quantile(v, 0.99) != 10 || !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile")
	}
	for in, want := range map[string]int{"2× H100": 2, "8x A100": 8, "H100": 0, "": 0, "x y": 0} {
		if got := deviceCount(in); got != want {
			t.Errorf("deviceCount(%q) = %d, want %d", in, got, want)
		}
	}
	if slug("Throughput vs load!") != "throughput-vs-load" {
		t.Error(slug("Throughput vs load!"))
	}
}

// A trace's throughput and goodput are over traces.Window, as record
// reports them: a failure sent first opens the window.
func TestTraceRunWindow(t *testing.T) {
	var rows []*traces.Request
	for i, e2e := range []int64{0, 1200, 1500} { // ms after its send at i s; 0 = failed
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 10, 5
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = r.Arrival, r.Arrival, 200
		if e2e == 0 {
			r.Error, r.HTTPStatus = "HTTP 503", 503
		} else {
			r.FirstToken, r.LastToken, r.UsageOutput = r.Arrival+e2e*1e6/2, r.Arrival+e2e*1e6, 5
		}
		rows = append(rows, r)
	}
	path := filepath.Join(t.TempDir(), "live.parquet")
	if err := traces.WriteAll(path, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{E2E: 1300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m := run.Metrics // window: the failed send at 0 s to the last token at 3.5 s
	if m.Completed != 2 || m.Failed != 1 || math.Abs(m.ReqPerSec-2/3.5) > 1e-12 || m.MetSLO != 1 || math.Abs(m.Goodput-1/3.5) > 1e-12 {
		t.Errorf("got %d completed, %d failed, %.4f req/s, %d met, goodput %.4f; want 2, 1, %.4f, 1, %.4f",
			m.Completed, m.Failed, m.ReqPerSec, m.MetSLO, m.Goodput, 2/3.5, 1/3.5)
	}
	if run, _ = TraceRun(t.Context(), path, traces.SLO{}); !math.IsNaN(run.Metrics.Goodput) {
		t.Errorf("no SLO: goodput %v, want NaN", run.Metrics.Goodput)
	}
}

// Each section's anchor is its own, however many share a title (or a
// title's slug): the third "Verification" took the second's anchor, and
// its link in the contents led to the second.
func TestSectionAnchorsAreUnique(t *testing.T) {
	d, err := Build("x", &Inputs{Runs: []*Run{handRun("a", 1)}}, extraSection{}, extraSection{}, extraSection{}, titled("Verification 2"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range d.Sections {
		if seen[s.ID] {
			t.Errorf("anchor %q twice", s.ID)
		}
		seen[s.ID] = true
	}
}

type titled string

func (s titled) Title() string                 { return string(s) }
func (titled) Blocks(*Inputs) ([]Block, error) { return []Block{&Text{"x"}}, nil }

// renderHTML is WriteHTML into a byte slice.
func renderHTML(d *Doc) ([]byte, error) {
	var b bytes.Buffer
	err := WriteHTML(&b, d)
	return b.Bytes(), err
}
