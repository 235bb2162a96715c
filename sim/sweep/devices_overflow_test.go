package sweep

import "testing"

// A config whose device total passes int is over any max_devices, not
// below it: 2^62 devices × 2 or 4 replicas wrapped to a negative total
// (or 0), passed max_devices = 8, and was filed as invalid.
func TestMaxDevicesCountsAHugeDeploymentOver(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[cluster]
router = "round_robin"
replicas = 1
[sweep]
"device.count" = [1, 4611686018427387904]
"cluster.replicas" = [2, 4]
[constraints]
max_devices = 8
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	for _, c := range ex.Configs {
		if c.Plan.Device.Count == 1 {
			if c.Skip != "" {
				t.Errorf("%s: skip %q (%s), want it run", c.Label, c.Skip, c.SkipDetail)
			}
			continue
		}
		if c.Skip != SkipMaxDevices {
			t.Errorf("%s: skip %q (%s), want %q", c.Label, c.Skip, c.SkipDetail, SkipMaxDevices)
		}
	}
}
