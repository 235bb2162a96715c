package sweep

import (
	"path/filepath"
	"slices"
	"testing"
)

// A config skip_if or max_devices leaves out is never validated, so its
// row can hold values no simulated plan may: the results file a run
// writes with such rows must read back.
func TestSkippedRowsOutsidePlanBoundsReadBack(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"device.gpu_memory_utilization" = [0.9, 1.5]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [10, -5]
[constraints]
skip_if = ["device.gpu_memory_utilization > 1", "batch.max_wait_ms < 0"]
[slo]
ttft_p99_ms = 2000
[search]
max_scale = 2
curve_octaves_below = 0
curve_octaves_above = 0
`, steadyTrace(50), Options{Workers: 1})
	path := filepath.Join(t.TempDir(), "results.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatalf("reading back the results the run wrote: %v", err)
	}
	if len(back.Rows) != len(res.Rows) {
		t.Errorf("%d rows read back; want %d", len(back.Rows), len(res.Rows))
	}
}

// max_devices leaves a config out before its plan is validated, so its
// row can hold a device.count past what a plan may: the run's results
// must still read back, the count as swept.
func TestMaxDevicesSkippedRowPastPlanBoundsReadsBack(t *testing.T) {
	res := runSpecOn(t, `base = "base.toml"
[sweep]
"device.count" = [1, 4194304]
"batch.strategy" = ["fixed"]
"batch.batch_size" = [8]
"batch.max_wait_ms" = [10]
[constraints]
max_devices = 8
[slo]
ttft_p99_ms = 2000
[search]
max_scale = 2
curve_octaves_below = 0
curve_octaves_above = 0
`, steadyTrace(50), Options{Workers: 1})
	path := filepath.Join(t.TempDir(), "results.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatalf("reading back the results the run wrote: %v", err)
	}
	var counts []int64
	for _, r := range back.Rows {
		counts = append(counts, r.DeviceCount)
		if r.DeviceCount == 4194304 && (r.Outcome != OutcomeSkipped || r.SkipReason != SkipMaxDevices) {
			t.Errorf("row %d: outcome %s (%s); want skipped (%s)", r.Index, r.Outcome, r.SkipReason, SkipMaxDevices)
		}
	}
	if !slices.Contains(counts, 4194304) {
		t.Errorf("device counts read back %v; want 4194304 among them", counts)
	}
}
