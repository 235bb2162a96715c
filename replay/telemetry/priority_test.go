package telemetry

import "testing"

// SGLang with priority scheduling writes a queue's total under
// priority="" and its breakdown by priority beside it, under the same
// name: the breakdown must not add to the total.
func TestEngineStateCountsPriorityBreakdownOnce(t *testing.T) {
	page := `sglang:num_running_reqs{model_name="m",priority="",tp_rank="0"} 5
sglang:num_running_reqs{model_name="m",priority="0",tp_rank="0"} 3
sglang:num_running_reqs{model_name="m",priority="1",tp_rank="0"} 2
sglang:num_queue_reqs{model_name="m",priority="",tp_rank="0"} 4
sglang:num_queue_reqs{model_name="m",priority="None",tp_rank="0"} 4
sglang:token_usage{model_name="m",priority="",tp_rank="0"} 0.5
`
	s, err := ParseMetrics([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	got := EngineStateOf(s)
	want := EngineState{"sglang", 5, 4, 0.5}
	if !stateEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
