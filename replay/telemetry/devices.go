package telemetry

import (
	"fmt"
	"strconv"
	"strings"
)

// DeviceSelection is the GPUs an engine runs on, each named by its NVML
// index or by its UUID ("GPU-…", "MIG-…") as the index and uuid columns of
// a GPU CSV record them. A nil selection keeps every device.
type DeviceSelection []string

// ParseDeviceSelection parses a comma-separated list of NVML device
// indices and UUIDs, e.g. "0,1" or "GPU-5f2c…". CUDA_VISIBLE_DEVICES's
// indices count in CUDA's order, which need not be NVML's: UUIDs are
// the same in both.
func ParseDeviceSelection(spec string) (DeviceSelection, error) {
	var sel DeviceSelection
	seen := map[string]bool{}
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			return nil, fmt.Errorf("device list %q: an empty entry: want NVML indices or UUIDs, comma-separated", spec)
		case (strings.HasPrefix(f, "GPU-") || strings.HasPrefix(f, "MIG-")) && len(f) > len("GPU-"):
		default:
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("device list %q: %q is neither an NVML index (0, 1, …) nor a UUID (GPU-…, MIG-…)", spec, f)
			}
			f = strconv.Itoa(n) // "01" is device 1, as Has compares it
		}
		if seen[f] {
			return nil, fmt.Errorf("device list %q: %q given twice", spec, f)
		}
		seen[f] = true
		sel = append(sel, f)
	}
	return sel, nil
}

// Has says whether the device with NVML index and uuid is selected;
// every device is when the selection is nil.
func (s DeviceSelection) Has(index int, uuid string) bool {
	if s == nil {
		return true
	}
	for _, f := range s {
		if f == uuid || f == strconv.Itoa(index) {
			return true
		}
	}
	return false
}
