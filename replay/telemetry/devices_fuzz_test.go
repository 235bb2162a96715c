package telemetry

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseDeviceSelection checks that a --gpu-devices list never panics,
// that every entry it accepts is kept once and selects the device it
// names (an index the device of that NVML index, a UUID the device of
// that UUID), and that the list, joined again, parses to itself.
func FuzzParseDeviceSelection(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzParseDeviceSelection.
	f.Fuzz(func(t *testing.T, spec string) {
		sel, err := ParseDeviceSelection(spec)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(spec)) {
				t.Fatalf("error %q does not name the list %q", err, spec)
			}
			return
		}
		if len(sel) == 0 {
			t.Fatalf("%q: an empty selection, which would select nothing", spec)
		}
		seen := map[string]bool{}
		for _, d := range sel {
			if seen[d] {
				t.Fatalf("%q: %q kept twice", spec, d)
			}
			seen[d] = true
			if n, err := strconv.Atoi(d); err == nil {
				if !sel.Has(n, "") {
					t.Fatalf("%q: entry %q does not select NVML device %d", spec, d, n)
				}
			} else if !sel.Has(-1, d) {
				t.Fatalf("%q: entry %q does not select the device of that UUID", spec, d)
			}
		}
		again, err := ParseDeviceSelection(strings.Join(sel, ","))
		if err != nil || strings.Join(again, ",") != strings.Join(sel, ",") {
			t.Fatalf("%q: %q reparsed as %q, %v", spec, sel, again, err)
		}
	})
}
