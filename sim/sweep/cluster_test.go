package sweep

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
)

// TestClusterSweepCapacity: cluster.replicas × cluster.router as swept plan
// keys; two replicas hold about twice the traffic of one, whatever the
// router, and per-device figures count both replicas.
func TestClusterSweepCapacity(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"cluster.replicas" = [1, 2]
"cluster.router" = ["round_robin", "least_outstanding"]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if len(ex.Configs) != 4 || ex.Configs[0].Label != "continuous replicas=1 router=round_robin" ||
		ex.Configs[3].Label != "continuous replicas=2 router=least_outstanding" {
		t.Fatalf("configs %q … %q", ex.Configs[0].Label, ex.Configs[len(ex.Configs)-1].Label)
	}
	if !strings.Contains(ex.Configs[3].PlanTOML, "[cluster]") || ex.Configs[3].Replicas != 2 {
		t.Errorf("config 3: replicas %d, plan\n%s", ex.Configs[3].Replicas, ex.Configs[3].PlanTOML)
	}
	res, err := Run(context.Background(), s, ex, short(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Outcome != OutcomeOK {
			t.Fatalf("%s: %s %s", r.Label, r.Outcome, r.Note)
		}
	}
	for i, router := range []string{"round_robin", "least_outstanding"} {
		one, two := res.Rows[i], res.Rows[2+i]
		if one.Replicas != 1 || two.Replicas != 2 || one.Router != router || two.Router != router || two.SplitTokens != 0 {
			t.Fatalf("rows %+v\n%+v", one, two)
		}
		t.Logf("%s: capacity %g× (1 replica), %g× (2 replicas)", router, one.Scale, two.Scale)
		if !(two.Scale >= 1.8*one.Scale) {
			t.Errorf("%s: two replicas hold %g× the trace's rate, one %g×: want ≥ 1.8× as much", router, two.Scale, one.Scale)
		}
		perDev := two.GoodputOutTokPerSec / 2
		if d := two.GoodputOutTokPerSecPerDevice - perDev; d*d > 1e-9*perDev*perDev {
			t.Errorf("%s: per device %g, want %g", router, two.GoodputOutTokPerSecPerDevice, perDev)
		}
		span := short(t).Span
		if two.DeviceSeconds < 2*span/two.Scale {
			t.Errorf("%s: device-seconds %g at %g×: want both replicas held over the %g s of arrivals", router, two.DeviceSeconds, two.Scale, span)
		}
	}
}

// TestClusterSweepSplit: a length split swept from the spec's inline
// [cluster]; rows carry the split columns, which survive the file, and
// max_devices counts both pools.
func TestClusterSweepSplit(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[cluster]
replicas = 1
router = "least_outstanding"
long_replicas = 1
[sweep]
"cluster.split_tokens" = [512, 2048]
"cluster.long_replicas" = [1, 2]
[constraints]
max_devices = 2
[search]
curve_octaves_above = 0
curve_octaves_below = 0
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if len(ex.Configs) != 4 || ex.Skipped[SkipMaxDevices] != 2 {
		t.Fatalf("%d configs, skipped %v", len(ex.Configs), ex.Skipped)
	}
	res, err := Run(context.Background(), s, ex, short(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Rows[0]
	if r.Label != "continuous split_tokens=512 long_replicas=1" || r.Outcome != OutcomeOK || r.Replicas != 2 ||
		r.SplitTokens != 512 || r.LongReplicas != 1 || r.Router != "least_outstanding" {
		t.Fatalf("row 0: %+v", r)
	}
	if sk := res.Rows[1]; sk.SkipReason != SkipMaxDevices || sk.Replicas != 3 || !strings.Contains(sk.Note, "3 devices > max_devices 2") {
		t.Errorf("row 1: %s %d %q", sk.SkipReason, sk.Replicas, sk.Note)
	}
	path := filepath.Join(t.TempDir(), "split.parquet")
	if err := WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Rows {
		if a, b := rowJSON(res.Rows[i]), rowJSON(back.Rows[i]); a != b {
			t.Errorf("row %d differs after the file:\n%s\n%s", i, a, b)
		}
	}
}

// TestClusterSkipIf: cluster keys in skip_if, and the legacy replicas name.
func TestClusterSkipIf(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
replicas = [1, 2, 4]
[constraints]
skip_if = ["replicas > 2", 'cluster.router == "round_robin"']
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if ex.Skipped[SkipIf] != 1 || ex.Configs[2].Skip != SkipIf {
		t.Fatalf("skipped %v", ex.Skipped)
	}
	// the legacy key: one replica is a plan without [cluster], two sit
	// behind least_outstanding
	if strings.Contains(ex.Configs[0].PlanTOML, "cluster") || !strings.Contains(ex.Configs[1].PlanTOML, `router = "least_outstanding"`) {
		t.Errorf("plans:\n%s\n%s", ex.Configs[0].PlanTOML, ex.Configs[1].PlanTOML)
	}
}

// The legacy replicas key beside other swept cluster keys: its one
// replica keeps the [cluster] they give (a plan without one would have a
// router and no replicas), as cluster.replicas = 1 would.
func TestLegacyReplicasWithSweptClusterKeys(t *testing.T) {
	for _, tc := range []struct{ name, sweep string }{
		{"router", `"cluster.router" = ["round_robin", "least_outstanding"]`},
		{"split", "\"cluster.split_tokens\" = [1024]\n\"cluster.long_replicas\" = [1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
replicas = [1, 2]
`+tc.sweep+"\n"+sloTOML)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := Expand(s, model.DefaultCatalog())
			if err != nil {
				t.Fatal(err)
			}
			c := ex.Configs[0]
			if !strings.HasPrefix(c.Label, "continuous replicas=1 ") || c.Plan.Cluster == nil || c.Plan.Cluster.Replicas != 1 {
				t.Errorf("config 0 (%s): plan\n%s", c.Label, c.PlanTOML)
			}
		})
	}
}

// Session waiting simulates one replica: a sweep holding turns refuses a
// spec with a [cluster] config, naming it, rather than ignore the hold.
func TestClusterSweepRefusesSessionWait(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"cluster.replicas" = [1, 2]
"cluster.router" = ["round_robin"]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, mustExpand(t, s), short(t), Options{SessionWait: &sim.SessionWait{}})
	if err == nil || !strings.Contains(err.Error(), "replicas=2") || !strings.Contains(err.Error(), "not supported with a cluster plan") {
		t.Errorf("err = %v, want the cluster config refused", err)
	}
}
