package telemetry

import (
	"math"
	"sort"
	"strings"
)

// EngineState is what the scraper keeps from one /metrics page: the
// engine's running and waiting request counts and its KV-cache usage as a
// fraction in [0, 1]. A field the engine does not export is NaN.
type EngineState struct {
	Engine  string // "vllm", "sglang", "tgi", "llamacpp", or "" when unknown
	Running float64
	Waiting float64
	KVUsage float64
}

type gaugeKind int

const (
	gaugeRunning gaugeKind = iota
	gaugeWaiting
	gaugeKV
)

// engineGauges maps engine metric names to the three gauges. Counts are
// summed over label sets (several models or data-parallel ranks); KV usage
// is averaged over them. Series that differ only in an engine's own ranks
// (oneEngineRanks) are one engine and count once; a priority's share of a
// count is left out, as the total is there too.
var engineGauges = map[string]struct {
	engine string
	kind   gaugeKind
}{
	"vllm:num_requests_running":     {"vllm", gaugeRunning},
	"vllm:num_requests_waiting":     {"vllm", gaugeWaiting},
	"vllm:gpu_cache_usage_perc":     {"vllm", gaugeKV}, // a fraction despite the name (vLLM v0)
	"vllm:kv_cache_usage_perc":      {"vllm", gaugeKV}, // vLLM v1, also a fraction
	"sglang:num_running_reqs":       {"sglang", gaugeRunning},
	"sglang:num_queue_reqs":         {"sglang", gaugeWaiting},
	"sglang:token_usage":            {"sglang", gaugeKV},
	"tgi_batch_current_size":        {"tgi", gaugeRunning},
	"tgi_queue_size":                {"tgi", gaugeWaiting},
	"llamacpp:requests_processing":  {"llamacpp", gaugeRunning},
	"llamacpp:requests_deferred":    {"llamacpp", gaugeWaiting},
	"llamacpp:kv_cache_usage_ratio": {"llamacpp", gaugeKV},
}

// EngineStateOf maps parsed samples to an EngineState. When an engine
// exports both the vLLM v0 and v1 KV gauge, the v1 one wins.
func EngineStateOf(samples []MetricSample) EngineState {
	st := EngineState{Running: math.NaN(), Waiting: math.NaN(), KVUsage: math.NaN()}
	var kvSum float64
	kvN := 0
	kvV1 := false
	seen := map[string]bool{}
	for i := range samples {
		s := &samples[i]
		g, ok := engineGauges[s.Name]
		if !ok || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || isPriorityBreakdown(s) {
			continue
		}
		key := engineSeriesKey(s)
		if seen[key] {
			continue
		}
		seen[key] = true
		if st.Engine == "" {
			st.Engine = g.engine
		}
		switch g.kind {
		case gaugeRunning:
			st.Running = addNaN(st.Running, s.Value)
		case gaugeWaiting:
			st.Waiting = addNaN(st.Waiting, s.Value)
		case gaugeKV:
			v1 := strings.HasSuffix(s.Name, "kv_cache_usage_perc")
			if v1 && !kvV1 && s.Name != "llamacpp:kv_cache_usage_ratio" {
				kvSum, kvN, kvV1 = 0, 0, true // the v1 name replaces v0 values seen so far
			} else if kvV1 && !v1 && g.engine == "vllm" {
				continue
			}
			kvSum += s.Value
			kvN++
		}
	}
	if kvN > 0 {
		st.KVUsage = kvSum / float64(kvN)
	}
	return st
}

// isPriorityBreakdown says whether s is one priority's share of a count:
// SGLang with priority scheduling writes the total under priority="" and
// each priority's under priority="<n>", beside it under the same name.
func isPriorityBreakdown(s *MetricSample) bool {
	return s.Label("priority") != ""
}

// oneEngineRanks are the labels SGLang puts on a scheduler's gauges that
// tell apart the ranks of one engine: its tensor-, pipeline- and
// expert-parallel ranks (moe_ep_rank follows tp_rank), all running one
// batch, their KV caches filled alike. dp_rank is not among them: each
// data-parallel rank has its own batch.
var oneEngineRanks = map[string]bool{"tp_rank": true, "pp_rank": true, "moe_ep_rank": true}

// engineSeriesKey names a sample's series by its metric name and its
// labels other than oneEngineRanks, in a fixed order.
func engineSeriesKey(s *MetricSample) string {
	labels := make([]string, 0, len(s.Labels))
	for _, l := range s.Labels {
		if !oneEngineRanks[l.Name] {
			labels = append(labels, l.Name+"\x00"+l.Value)
		}
	}
	sort.Strings(labels)
	return s.Name + "\x01" + strings.Join(labels, "\x01")
}

func addNaN(acc, v float64) float64 {
	if math.IsNaN(acc) {
		return v
	}
	return acc + v
}
