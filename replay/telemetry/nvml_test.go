package telemetry

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNVMLWithoutDriver runs the real NVML path. On a machine without an
// NVIDIA driver it must fail with ErrNoDriver, write no file, and give a
// nil recorder whose summary is all unknown. With a driver it must
// sample.
func TestNVMLWithoutDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.gpu.csv")
	r, err := StartNVML(context.Background(), 10*time.Millisecond, path, nil)
	if err == nil {
		time.Sleep(30 * time.Millisecond)
		s := r.Stop()
		t.Logf("NVML present: %d devices, %v J (%s)", s.Devices, s.EnergyJ, s.EnergySource)
		if s.Err != nil || s.Devices == 0 || s.Samples < 2 {
			t.Errorf("with a driver: %+v", s)
		}
		return
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("got %v, want ErrNoDriver", err)
	}
	if r != nil {
		t.Fatal("non-nil recorder without a driver")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("wrote %s without a driver", path)
	}
	s := r.Stop()
	if !errors.Is(s.Err, ErrNoDriver) || s.Devices != 0 || !math.IsNaN(s.EnergyJ) || !math.IsNaN(s.DeviceSeconds) || !math.IsNaN(s.MeanPowerW) {
		t.Errorf("summary without a driver: %+v", s)
	}
	// Opening again must fail the same way, not panic.
	if _, _, err := OpenNVML(); !errors.Is(err, ErrNoDriver) {
		t.Errorf("second OpenNVML: %v", err)
	}
}
