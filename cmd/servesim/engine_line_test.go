package main

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/telemetry"
)

// The engine summary line says how many /metrics pages were read and
// whether their gauges were recognised: "engine ()" with empty figures
// hid a page never read, or one of an engine servesim does not know.
func TestEngineLineSaysWhatWasRead(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		sum  telemetry.ScrapeSummary
		want string
	}{
		{telemetry.ScrapeSummary{Failed: 3, MeanRunning: nan, MaxRunning: nan, MeanWaiting: nan, MaxWaiting: nan, MaxKVUsage: nan},
			"engine, whole recording (no page read; 0 scrapes, 3 failed):"},
		{telemetry.ScrapeSummary{Scrapes: 5, MeanRunning: nan, MaxRunning: nan, MeanWaiting: nan, MaxWaiting: nan, MaxKVUsage: nan},
			"engine, whole recording (no known engine gauges; 5 scrapes):"},
		{telemetry.ScrapeSummary{Engine: "vllm", Scrapes: 4, Failed: 1, MeanRunning: 2, MaxRunning: 3, MeanWaiting: 0, MaxWaiting: 1, MaxKVUsage: 0.5},
			"engine, whole recording (vllm; 4 scrapes, 1 failed): running mean 2 max 3"},
		{telemetry.ScrapeSummary{Engine: "vllm", Scrapes: 4, Missed: 6, MeanRunning: 2, MaxRunning: 3, MeanWaiting: 0, MaxWaiting: 1, MaxKVUsage: 0.5},
			"engine, whole recording (vllm; 4 scrapes, 6 polls missed while a slow page came): running mean 2"},
	} {
		if got := engineLine("engine, whole recording", c.sum); !strings.HasPrefix(got, c.want) {
			t.Errorf("engineLine = %q, want it to start %q", got, c.want)
		}
	}
}
