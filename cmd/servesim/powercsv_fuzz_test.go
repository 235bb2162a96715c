package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/telemetry"
)

// FuzzReadPowerCSV: any gpu.csv either fails with an error that names
// the file, or gives samples the power fit can take (watts finite and
// ≥ 0, utilization in [0, 1]) of devices the selection chose, each
// listed once. Crashers found are kept in testdata/fuzz/FuzzReadPowerCSV.
func FuzzReadPowerCSV(f *testing.F) {
	f.Add([]byte(gpuCSVRows(4, "NVIDIA H100 80GB HBM3")), "")
	f.Add([]byte(gpuCSVRows(3, "NVIDIA A100-SXM4-80GB")), "1")
	f.Fuzz(func(t *testing.T, data []byte, devices string) {
		var sel telemetry.DeviceSelection
		if devices != "" {
			var err error
			if sel, err = telemetry.ParseDeviceSelection(devices); err != nil {
				return
			}
		}
		path := filepath.Join(t.TempDir(), "gpu.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		samples, devs, err := readPowerCSV(path, sel)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i, s := range samples {
			if !(s.Watts >= 0) || math.IsInf(s.Watts, 0) || !(s.Utilization >= 0 && s.Utilization <= 1) {
				t.Fatalf("sample %d: %+v: want watts finite and >= 0, utilization in [0, 1]", i, s)
			}
		}
		seen := map[int]bool{}
		for _, d := range devs {
			if seen[d.Index] || !sel.Has(d.Index, d.UUID) {
				t.Fatalf("devices %+v: device %d listed twice or not selected by %q", devs, d.Index, devices)
			}
			seen[d.Index] = true
		}
	})
}
