package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/replay/telemetry"
)

// A run's engine gauges cover its measured window: the idle scrapes
// before it (probes, warm-ups) and between runs pulled its running mean
// toward 0.
func TestRecordEngineLineCoversEachRunsMeasuredWindow(t *testing.T) {
	var running atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "vllm:num_requests_running{engine=\"0\"} %d\nvllm:num_requests_waiting{engine=\"0\"} 0\n", running.Load())
	}))
	defer srv.Close()
	eng, err := telemetry.StartScrapeWith(context.Background(), telemetry.ScrapeConfig{URL: srv.URL, Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // idle: probes and warm-ups
	var runs []*replay.Summary
	for k := 1; k <= 2; k++ {
		running.Store(int32(4 * k))
		time.Sleep(20 * time.Millisecond) // the engine's gauge is up before the window opens
		from := time.Now()
		time.Sleep(100 * time.Millisecond)
		to := time.Now()
		time.Sleep(20 * time.Millisecond)
		running.Store(0)
		runs = append(runs, &replay.Summary{Run: k, Origin: from, WindowFrom: from, WindowTo: to, Wall: to.Sub(from), OutputTokens: 10})
		time.Sleep(50 * time.Millisecond)
	}
	runs = append(runs, &replay.Summary{Run: 3})
	var out bytes.Buffer
	if err := (&samplers{eng: eng}).stopRuns(&out, runs, 20); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs[:2] {
		line := lineOf(out.String(), fmt.Sprintf("engine, run %d measured window (vllm; ", r.Run))
		want := fmt.Sprintf("running mean %d max %d,", 4*r.Run, 4*r.Run)
		if !strings.Contains(line, want) {
			t.Errorf("run %d: %q, want it to say %q\n%s", r.Run, line, want, out.String())
		}
	}
	if !strings.Contains(out.String(), "engine, run 3: no measured window") || lineOf(out.String(), "engine, whole recording (vllm; ") == "" {
		t.Errorf("summary:\n%s", out.String())
	}
}
