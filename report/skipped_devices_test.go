package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// A row max_devices skipped holds the device count and replicas the spec
// swept, which no plan bounds: selected as a run, it counts every one of
// its devices rather than a product wrapped to 0 (unknown) or below.
func TestRowRunOfSkippedHugeDeploymentCountsDevices(t *testing.T) {
	sw := &Sweep{Name: "s", Path: "s.parquet"}
	for _, tc := range []struct {
		count, replicas int64
		want            int
	}{
		{1 << 62, 4, math.MaxInt},
		{4194304, 3, 4194304 * 3},
	} {
		row := &sweep.Row{Label: "big", Outcome: sweep.OutcomeSkipped, SkipReason: sweep.SkipMaxDevices, Device: "H100",
			DeviceCount: tc.count, Replicas: tc.replicas, ReqPerSec: math.NaN()}
		r := RowRun(sw, row)
		if r.Metrics.Devices != tc.want {
			t.Errorf("%d × %d: Devices = %d, want %d", tc.count, tc.replicas, r.Metrics.Devices, tc.want)
		}
		if !strings.HasPrefix(r.Device, fmt.Sprint(tc.want)+"× ") {
			t.Errorf("%d × %d: Device = %q, want %d× H100", tc.count, tc.replicas, r.Device, tc.want)
		}
	}
}
