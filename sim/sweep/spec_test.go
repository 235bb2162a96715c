package sweep

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

func TestSpecErrorsNameFileAndKey(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"unknown sweep key", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seq\" = [1]\n" + sloTOML, "sweep.batch.max_num_seq: unknown key"},
		{"unknown top key", `base = "base.toml"` + "\nfoo = 1\n" + sloTOML, "line 2: unknown key foo"},
		{"slo key in another case", `base = "base.toml"` + "\n[slo]\nTTFT_P99_MS = 3\n", "unknown key slo.TTFT_P99_MS (keys are case-sensitive: slo.ttft_p99_ms)"},
		{"section in another case", `base = "base.toml"` + "\n[Search]\nmax_probes = 3\n" + sloTOML, "unknown key Search (keys are case-sensitive: search)"},
		{"unknown slo key", `base = "base.toml"` + "\n[slo]\nttft_p99 = 3\n", "unknown key slo.ttft_p99"},
		{"empty list", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = []\n" + sloTOML, "sweep.batch.max_num_seqs: empty list"},
		{"step zero", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = {from = 1, to = 8, step = 0}\n" + sloTOML, "sweep.batch.max_num_seqs: range: step = 0"},
		{"step negative", `base = "base.toml"` + "\n[sweep]\n\"device.gpu_memory_utilization\" = {from = 0.8, to = 0.9, step = -0.1}\n" + sloTOML, "sweep.device.gpu_memory_utilization: range: step = -0.1"},
		{"from above to", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = {from = 64, to = 8, factor = 2}\n" + sloTOML, "sweep.batch.max_num_seqs: range: from = 64 is above to = 8"},
		{"factor one", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = {from = 8, to = 64, factor = 1}\n" + sloTOML, "factor = 1: want > 1"},
		{"both step and factor", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = {from = 8, to = 64, factor = 2, step = 1}\n" + sloTOML, "exactly one of step"},
		{"unknown strategy", `base = "base.toml"` + "\n[sweep]\n\"batch.strategy\" = [\"continuous\", \"paged\"]\n" + sloTOML, `sweep.batch.strategy: unknown strategy "paged"`},
		{"wrong type", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = [8, \"x\"]\n" + sloTOML, "sweep.batch.max_num_seqs: value 1 (\"x\"): want an integer"},
		{"number as a string", `base = "base.toml"` + "\n[sweep]\n\"device.count\" = [\"1\"]\n" + sloTOML, `sweep.device.count: value 0 ("1"): want an integer`},
		{"single number as a string", `base = "base.toml"` + "\n[sweep]\n\"device.count\" = \"2\"\n" + sloTOML, `sweep.device.count: value "2": want an integer`},
		{"duplicate", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = [8, 8]\n" + sloTOML, "value 8 appears twice"},
		{"key for absent strategy", `base = "base.toml"` + "\n[sweep]\n\"batch.batch_size\" = [8]\n" + sloTOML, "sweep.batch.batch_size: applies only to strategy fixed"},
		{"no slo", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = [8]\n", "slo: give at least one"},
		{"bad goodput", `base = "base.toml"` + "\n[slo]\ngoodput_min = 1.5\n", "slo.goodput_min"},
		{"bad precision", `base = "base.toml"` + "\n[sweep]\n\"model.precision\" = [\"bf17\"]\n" + sloTOML, "sweep.model.precision"},
		{"bad replicas", `base = "base.toml"` + "\n[sweep]\nreplicas = [0]\n" + sloTOML, "sweep.replicas: must be ≥ 1"},
		{"bad cluster replicas", `base = "base.toml"` + "\n[sweep]\n\"cluster.replicas\" = [0]\n" + sloTOML, "sweep.cluster.replicas: must be ≥ 1"},
		{"replicas twice", `base = "base.toml"` + "\n[sweep]\nreplicas = [1]\ncluster.replicas = [2]\n" + sloTOML, "sweep.replicas: an alias of sweep.cluster.replicas"},
		{"bad router", `base = "base.toml"` + "\n[sweep]\n\"cluster.router\" = [\"random\"]\n" + sloTOML, `sweep.cluster.router: unknown router "random"`},
		{"bad split", `base = "base.toml"` + "\n[sweep]\n\"cluster.split_tokens\" = [0]\n" + sloTOML, "sweep.cluster.split_tokens: must be ≥ 1"},
		{"unknown cluster key", `base = "base.toml"` + "\n[sweep]\n\"cluster.routers\" = [\"round_robin\"]\n" + sloTOML, "sweep.cluster.routers: unknown key"},
		{"bad skip_if key", `base = "base.toml"` + "\n[constraints]\nskip_if = [\"batch.seqs < 3\"]\n" + sloTOML, `constraints.skip_if[0] "batch.seqs < 3": unknown key "batch.seqs"`},
		{"no base", "[sweep]\n\"batch.max_num_seqs\" = [8]\n" + sloTOML, "no base plan"},
		{"bad search", `base = "base.toml"` + "\n[search]\ntolerance = 0\n" + sloTOML, "search.tolerance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, _, err := writeSpec(t, tc.body)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want the file and %q", err, tc.want)
			}
		})
	}
}

func TestExpandErrorsNameFileAndKey(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"nothing left", `base = "base.toml"` + "\n[sweep]\n\"batch.max_num_seqs\" = [8, 16]\n[constraints]\nskip_if = [\"batch.max_num_seqs >= 8\"]\n" + sloTOML,
			"every one of the 2 configs is skipped (2 skip_if)"},
		{"weights never fit", `base = "base.toml"` + "\n[model]\nname = \"Llama-3.1-70B\"\n" + sloTOML, "1 weights_do_not_fit"},
		{"unknown device", `base = "base.toml"` + "\n[sweep]\n\"device.model\" = [\"H100-SXM-80G\", \"TPU9\"]\n[prices]\nTPU9 = 1.0\n" + sloTOML, `prices."TPU9"`},
		{"device without price", `base = "base.toml"` + "\n[sweep]\n\"device.model\" = [\"H100-SXM-80G\", \"A100-80G\"]\n" + sloTOML, `[prices] "A100-80G"`},
		{"device priced twice", `base = "base.toml"` + "\n[prices]\n\"H100-SXM-80G\" = 1.0\n\"h100-sxm-80g\" = 2.0\n" + sloTOML, `is priced by "H100-SXM-80G" too`},
		{"missing strategy key", `base = "base.toml"` + "\n[sweep]\n\"batch.strategy\" = [\"fixed\"]\n" + sloTOML, "missing required key batch.batch_size"},
		{"router without replicas", `base = "base.toml"` + "\n[sweep]\n\"cluster.router\" = [\"round_robin\"]\n" + sloTOML, "missing required key cluster.replicas"},
		{"split without long_replicas", `base = "base.toml"` + "\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\n[sweep]\n\"cluster.split_tokens\" = [1024]\n" + sloTOML, "missing required key cluster.long_replicas"},
		{"unknown cluster plan key", `base = "base.toml"` + "\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\nsplit = 3\n" + sloTOML, "unknown key cluster.split"},
		{"out of range value", `base = "base.toml"` + "\n[sweep]\n\"device.gpu_memory_utilization\" = [0.9, 1.5]\n" + sloTOML, "device.gpu_memory_utilization: must be in (0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, s, err := writeSpec(t, tc.body)
			if err == nil {
				_, err = Expand(s, model.DefaultCatalog())
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want the file and %q", err, tc.want)
			}
		})
	}
}

// A [prices] key names its device as the catalog does, in any case.
func TestPricesMatchDeviceInAnySpelling(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n\"device.model\" = [\"H100-SXM-80G\", \"a100-80g\"]\n"+
		"[prices]\n\"h100-sxm-80g\" = 5.0\n\"A100-80G\" = 1.5\n"+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"H100-SXM-80G": 5, "a100-80g": 1.5}
	for _, c := range mustExpand(t, s).Configs {
		dev, _ := c.value("device.model")
		if got := c.Plan.Cost.USDPerHour; got != want[dev.(string)] {
			t.Errorf("%s: usd_per_hour %g, want the [prices] entry %g", dev, got, want[dev.(string)])
		}
	}
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		k    kind
		m    map[string]any
		want []any
	}{
		{kInt, map[string]any{"from": int64(8), "to": int64(256), "factor": int64(2)}, []any{int64(8), int64(16), int64(32), int64(64), int64(128), int64(256)}},
		{kInt, map[string]any{"from": int64(1), "to": int64(10), "step": int64(4)}, []any{int64(1), int64(5), int64(9)}},
		{kFloat, map[string]any{"from": 0.8, "to": 0.95, "step": 0.05}, []any{0.8, 0.85, 0.9, 0.95}},
		{kFloat, map[string]any{"from": 0.1, "to": 0.3, "step": 0.1}, []any{0.1, 0.2, 0.3}},
		{kFloat, map[string]any{"from": int64(1), "to": int64(1), "step": int64(1)}, []any{1.0}},
		{kInt, map[string]any{"from": int64(1), "to": int64(5), "factor": 1.5}, []any{int64(1), int64(2), int64(3)}},
	} {
		got, err := rangeValues(tc.k, tc.m)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%v: %v, %v; want %v", tc.m, got, err, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v: %v, want %v", tc.m, got, tc.want)
				break
			}
		}
	}
}
