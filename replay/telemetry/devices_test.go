package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostSource is a host of n GPUs, each drawing 100 W more than the last.
type hostSource struct{ n int }

func (h hostSource) Sample() ([]DeviceSample, error) {
	var round []DeviceSample
	for i := 0; i < h.n; i++ {
		s := NewDeviceSample(i)
		s.UUID, s.Name, s.PowerW = "GPU-"+string(rune('a'+i)), "H100", float64(100*(i+1))
		round = append(round, s)
	}
	return round, nil
}

// A selection samples the engine's devices only: the host's others are
// neither summed into its energy nor written to its CSV.
func TestGPURecorderSamplesTheSelectedDevices(t *testing.T) {
	sel, err := ParseDeviceSelection("2,GPU-a")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.gpu.csv")
	r, err := StartGPU(context.Background(), hostSource{8}, GPUConfig{Interval: time.Hour, Path: path, Devices: sel})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Stop()
	if s.Devices != 2 || len(s.PerDevice) != 2 || s.PerDevice[0].Index != 0 || s.PerDevice[1].Index != 2 {
		t.Fatalf("summary %+v: want devices 0 and 2", s)
	}
	if err := r.Publish(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, path)
	if len(rows) != 1+2*s.Samples {
		t.Errorf("%d CSV rows after %d rounds, want a header and 2 a round", len(rows), s.Samples)
	}
}

// An index written with a leading zero or sign names the same device:
// kept as written, it would select none.
func TestDeviceSelectionIndexAsWritten(t *testing.T) {
	sel, err := ParseDeviceSelection("01,+2")
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Has(1, "GPU-b") || !sel.Has(2, "GPU-c") {
		t.Errorf("selection %q: want devices 1 and 2 selected", sel)
	}
	if _, err := ParseDeviceSelection("1,01"); err == nil {
		t.Error(`"1,01": want an error, the device given twice`)
	}
}

// A selected device the host does not have is an error at the start,
// not a recording of no GPU at all.
func TestGPURecorderRefusesAMissingSelectedDevice(t *testing.T) {
	sel, err := ParseDeviceSelection("1,5")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.gpu.csv")
	r, err := StartGPU(context.Background(), hostSource{2}, GPUConfig{Interval: time.Hour, Path: path, Devices: sel})
	if err == nil {
		s := r.Stop()
		t.Fatalf("StartGPU: no error; summary %d devices, err %v", s.Devices, s.Err)
	}
	if !strings.Contains(err.Error(), `"5"`) {
		t.Errorf("error %q: want it to name device 5", err)
	}
	if r != nil {
		t.Error("want a nil recorder with the error")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Errorf("%d files left beside %s, want none", len(entries), path)
	}
}
