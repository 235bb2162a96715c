package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/telemetry"
)

// The scraper's "no /metrics" goes where the command's other messages go,
// its error writer, not the process's standard error.
func TestRecordEngineMetricsLogsToErrWriter(t *testing.T) {
	srv := replaytest.New(replaytest.Options{}) // answers /metrics 404
	defer srv.Close()
	dir := t.TempDir()
	tr := writeFile(t, dir, "in.csv", smallCSV)
	app := newApp()
	var stdout, stderr bytes.Buffer
	app.Writer, app.ErrWriter = &stdout, &stderr
	err := app.RunContext(context.Background(), []string{"servesim", "record", "--base-url", srv.BaseURL(), "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--prompt-overhead", "20",
		"--trace", tr, "--out", filepath.Join(dir, "o.csv"), "--engine-metrics", srv.BaseURL()})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "no /metrics") {
		t.Errorf("the command's error writer lacks the scraper's \"no /metrics\":\n%s", stderr.String())
	}
}

// A malformed --engine-metrics is a usage error that names the flag.
func TestRecordRefusesBadEngineMetricsURL(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	_, code, err := runCode(t, "record", "--base-url", url, "--model", "m", "--api-key-env", "SERVESIM_NO_KEY",
		"--trace", tr, "--out", filepath.Join(dir, "o.csv"), "--engine-metrics", "h:8000")
	if code != 2 || err == nil || !strings.Contains(err.Error(), "--engine-metrics") {
		t.Errorf("exit %d, err %v; want exit 2 naming --engine-metrics", code, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}

// oneGPU is one device drawing 300 W.
type oneGPU struct{}

func (oneGPU) Sample() ([]telemetry.DeviceSample, error) {
	s := telemetry.NewDeviceSample(0)
	s.PowerW, s.EnergyMJ = 300, 1e9
	return []telemetry.DeviceSample{s}, nil
}

// A run without output tokens has no energy per token: the summary line
// shows "—", as every other undefined figure, not a 0 or a hyphen.
func TestSamplersWithoutTokensShowNoJoulesPerToken(t *testing.T) {
	rec, err := telemetry.StartGPU(context.Background(), oneGPU{}, telemetry.GPUConfig{Interval: time.Hour, Path: filepath.Join(t.TempDir(), "g.csv")})
	if err != nil {
		t.Fatal(err)
	}
	s := &samplers{gpu: rec}
	var out bytes.Buffer
	s.stop(&out, 0)
	s.gpu.Discard()
	if !strings.Contains(out.String(), "— J/output token") {
		t.Errorf("summary %q: want — J/output token", out.String())
	}
}
