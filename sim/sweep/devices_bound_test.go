package sweep

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// Without max_devices, a swept device.count or cluster.replicas past the
// plan's bounds is refused by Validate before it resolves, so no config
// that runs holds more devices than an int64 product counts (the per-device
// goodput divides by device_count × replicas).
func TestHugeSweptDeploymentNeverRuns(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[cluster]
router = "round_robin"
replicas = 1
[sweep]
"device.count" = [1, 4611686018427387904]
"cluster.replicas" = [2, 4611686018427387904]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Expand(s, model.DefaultCatalog())
	if err == nil || !strings.Contains(err.Error(), "cluster.replicas: must be ≤") {
		t.Errorf("err = %v, want the swept replicas refused (cluster.replicas: must be ≤ ...)", err)
	}
}
