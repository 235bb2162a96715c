package main

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/report"
	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// sliceCSV writes the header and first n rows of a CSV file to dir.
func sliceCSV(t *testing.T, src, dir string, n int) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for i := 0; i <= n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	out := filepath.Join(dir, "slice.csv")
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// fakeSweep writes a small, plausible sweep results file: continuous
// configs with load curves that saturate, knees, Pareto flags and ranks.
func fakeSweep(t *testing.T, path string) {
	t.Helper()
	var rows []sweep.Row
	for i, seqs := range []int64{16, 32, 64, 128, 256, 512} {
		for j, dev := range []string{"H100", "A100"} {
			capTok := float64(seqs) * 40 * math.Pow(0.8, float64(j)) / (1 + float64(seqs)/300)
			price := []float64{4.0, 2.2}[j]
			var curve []sweep.CurvePoint
			for k := 1; k <= 8; k++ {
				s := float64(k) * 0.5
				out := math.Min(s*1000, capTok) * (1 - 0.02*float64(k))
				p99 := 0.05 + 0.02*s + math.Max(0, s*1000-capTok)/capTok*8
				curve = append(curve, sweep.CurvePoint{Scale: s, ReqPerSec: out / 250, OutTokPerSec: out,
					TTFTP99: p99, E2EP99: p99 + 4, USDPerMOut: price / 3600 / out * 1e6})
			}
			sc := math.Min(capTok/1000, 4)
			cost := price / 3600 / (sc * 1000) * 1e6
			sat := price / 3600 / capTok * 1e6
			r := sweep.Row{
				Index: int64(len(rows)), Label: fmt.Sprintf("continuous max_num_seqs=%d device=%s", seqs, dev),
				Model: "Llama-3.1-8B", Strategy: "continuous", MaxNumSeqs: seqs, MaxNumBatchedTokens: 8192,
				Device: dev, DeviceCount: 1, Replicas: 1, GPUMemoryUtilization: 0.9, BlockSize: 16, KVBlocks: 20000 + int64(j)*5000,
				RateScale: math.NaN(), Outcome: sweep.OutcomeOK, Scale: sc, ArrivalRate: sc * 4, SLOMet: true,
				GoodputFraction: 0.99, GoodputReqPerSec: sc * 4, GoodputOutTokPerSec: sc * 1000,
				GoodputOutTokPerSecPerDevice: sc * 1000, ReqPerSec: sc * 4, OutTokPerSec: sc * 1000,
				TTFTP50: 0.03 + 0.01*float64(i), TTFTP99: 0.2 + 0.3/float64(i+1) + 0.2*float64(j), TPOTMean: 0.01,
				TPOTP99: 0.02, E2EP99: 6, DeviceSeconds: 3600 / sc, USDPerMOutEst: cost, USDPerMTotalEst: cost / 3,
				USDPerMOutBilled: math.NaN(), SatScale: capTok / 1000, SatOutTokPerSec: capTok, SatUSDPerMOut: sat,
				TailPenalty: cost/sat - 1, KneeScale: sweep.Knee(curve, 5, 50), Curve: curve,
			}
			rows = append(rows, r)
		}
	}
	x, y, z := make([]float64, len(rows)), make([]float64, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		x[i], y[i], z[i] = r.USDPerMOutEst, r.TTFTP99, -r.GoodputOutTokPerSecPerDevice
	}
	lat, thr := sweep.ParetoFront(x, y), sweep.ParetoFront(x, z)
	for i := range rows {
		rows[i].ParetoLatency, rows[i].ParetoThroughput = lat[i], thr[i]
		rows[i].OnPareto = lat[i] || thr[i]
	}
	rank := 1
	for _, i := range sortedBy(x) {
		rows[i].Rank = int64(rank)
		rank++
	}
	res := &sweep.Results{Meta: sweep.Meta{SpecName: "demo", TraceName: "azure-conv", TraceRequests: 2000, TotalConfigs: len(rows)}, Rows: rows}
	if err := sweep.WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
}

func sortedBy(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			if v[idx[j]] < v[idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	return idx
}

var externalRef = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|<script[^>]*\bsrc\b|<link\b|@import|url\(\s*['"]?(https?:|//)`)

// TestReportHTML renders a report from a small simulate run plus a sweep
// file, checks it is self-contained, and (with chromium) that it renders.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	trace := sliceCSV(t, "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", dir, 2000)
	sim := filepath.Join(dir, "sim")
	if _, err := run(t, "simulate", "--trace", trace, "--out", sim); err != nil {
		t.Fatal(err)
	}
	sw := filepath.Join(dir, "sweep.parquet")
	fakeSweep(t, sw)
	html := filepath.Join(dir, "report.html")
	out, err := run(t, "report", sim, sw, "-o", html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote "+html) {
		t.Errorf("output %q", out)
	}
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{"<svg", "Comparison", "Latency distributions", "Throughput vs load", "Pareto front",
		"KV cache utilization", "Cost breakdown", "continuous max_num_seqs=", "token_budget", "tail penalty", "knee"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "<script", "xmlns"} {
		if strings.Contains(s, bad) {
			i := strings.Index(s, bad)
			t.Errorf("report holds %q: …%s…", bad, s[max(0, i-80):min(len(s), i+80)])
		}
	}
	if m := externalRef.FindString(s); m != "" {
		t.Errorf("report holds an external reference %q", m)
	}
	if os.Getenv("SERVESIM_REPORT_KEEP") != "" {
		os.WriteFile(os.Getenv("SERVESIM_REPORT_KEEP"), data, 0o644)
	}
	md := filepath.Join(dir, "report.md")
	if _, err := run(t, "report", "-o", md, sim, sw); err != nil {
		t.Fatal(err)
	}
	mdData, _ := os.ReadFile(md)
	if !strings.Contains(string(mdData), "](report_files/cdf-ttft.svg)") {
		t.Errorf("markdown lacks the TTFT CDF link")
	}
	if _, err := os.Stat(filepath.Join(dir, "report_files", "cdf-ttft.svg")); err != nil {
		t.Error(err)
	}
	screenshot(t, html)
}

// screenshot renders the report in headless chromium and checks the
// picture: it exists, decodes, has the window's size and is not blank.
func screenshot(t *testing.T, html string) {
	const bin = "/usr/bin/chromium"
	if _, err := os.Stat(bin); err != nil {
		msg := "headless browser check needs chromium: apt-get install -y chromium"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	png := filepath.Join(filepath.Dir(html), "report.png")
	if p := os.Getenv("SERVESIM_SCREENSHOT"); p != "" {
		png = p
	}
	const w, h = 1280, 4000
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", w, h), "file://"+html)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("chromium took over 90 s:\n%s", out)
	}
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	checkScreenshot(t, png, w, h)
}

func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	colours, nonWhite, total := distinct(img)
	if colours < 50 || float64(nonWhite) < 0.02*float64(total) {
		t.Errorf("screenshot looks blank: %d distinct colours, %d of %d pixels not white", colours, nonWhite, total)
	}
}

func distinct(img image.Image) (colours, nonWhite, total int) {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bb, _ := img.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8), 255}
			seen[c] = true
			if c.R < 245 || c.G < 245 || c.B < 245 {
				nonWhite++
			}
			total++
		}
	}
	return len(seen), nonWhite, total
}

// The verify.json is one servesim verify wrote (verify's testdata).
func TestReportVerifyPages(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	if _, err := run(t, "report", "--verify", "../../verify/testdata/verify.json", "-o", out); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(out)
	if !strings.Contains(string(html), "Verification") || !strings.Contains(string(html), "seqs=4") {
		t.Errorf("report lacks the verification pages")
	}
}

// A verify.json that is not one (no version, no candidates, another
// version, broken) fails the report, naming the file, and writes nothing.
func TestReportVerifyRejectsBadResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	for _, c := range []struct{ data, want string }{
		{`{}`, "version 0, want 1: not a servesim verify result"},
		{`{"version": 2}`, "version 2, want 1"},
		{`{"version": 1}`, "candidates: none"},
		{`{"version": 1, "candidates": [{"rank": "1"}]}`, "candidates.rank: want int64, got JSON string"},
		{`{"version": 1, "candidates": [`, "truncated"},
	} {
		vj := writeFile(t, dir, "verify.json", c.data)
		_, code, err := runCode(t, "report", "--verify", vj, "-o", out)
		if code == 0 || err == nil || !strings.HasPrefix(err.Error(), vj+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit status %d, err = %v; want %s: …%s…", c.data, code, err, vj, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused report was written: %v", err)
	}
}

func TestReportOutputChecks(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", writeFile(t, dir, "in.csv", smallCSV), "--config", basePlan(t, dir, "p.toml"), "--out", res); err != nil {
		t.Fatal(err)
	}
	isdir := filepath.Join(dir, "isdir.md")
	os.Mkdir(isdir, 0o755)
	for _, out := range []string{isdir, filepath.Join(dir, "missing", "r.md")} {
		if _, err := run(t, "report", res, "-o", out); err == nil {
			t.Errorf("report -o %s: no error", out)
		}
	}
	if got := testfs.Names(t, dir); len(got) != 4 {
		t.Errorf("refused reports left %v", got)
	}
	// When the write itself fails, the figures it wrote go too.
	in, err := report.Load(t.Context(), traces.SLO{}, res)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := report.Build("t", in, report.DefaultSections()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteFile(isdir, doc); err == nil {
		t.Fatal("writing over a directory: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "isdir_files")); !os.IsNotExist(err) {
		t.Errorf("a failed report left its figures: %v", err)
	}
}

// report --slo adds each run's goodput to the comparison table; a limit
// every request meets makes it the run's throughput.
func TestReportGoodput(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	if _, err := run(t, "simulate", "--trace", writeFile(t, dir, "in.csv", smallCSV), "--config", basePlan(t, dir, "p.toml"), "--out", res); err != nil {
		t.Fatal(err)
	}
	table := func(args ...string) (header, row []string) {
		out := filepath.Join(dir, "r.md")
		if _, err := run(t, append([]string{"report", res, "-o", out}, args...)...); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]string
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "| ") {
				rows = append(rows, strings.Split(strings.Trim(l, "| "), " | "))
			}
		}
		if len(rows) < 2 {
			t.Fatalf("no comparison table:\n%s", data)
		}
		return rows[0], rows[1]
	}
	if header, _ := table(); slices.Contains(header, "goodput req/s") {
		t.Errorf("no SLO, yet a goodput column: %q", header)
	}
	header, row := table("--slo", "e2e=1h")
	g, r := slices.Index(header, "goodput req/s"), slices.Index(header, "req/s")
	if g < 0 || r < 0 || row[g] != row[r] || row[g] == "—" {
		t.Errorf("e2e=1h: header %q, row %q: want goodput equal to req/s", header, row)
	}
	if _, err := run(t, "report", res, "-o", filepath.Join(dir, "x.md"), "--slo", "ttft"); err == nil || !strings.Contains(err.Error(), "slo") {
		t.Errorf("--slo ttft: %v, want an error naming the SLO", err)
	}
}
