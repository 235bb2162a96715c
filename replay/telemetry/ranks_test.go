package telemetry

import "testing"

// SGLang labels a scheduler's gauges with its tensor-, pipeline- and
// expert-parallel ranks (tp_rank, pp_rank, moe_ep_rank); with expert
// parallelism moe_ep_rank follows tp_rank. All those ranks run one batch
// over one KV cache: they count once. Data-parallel ranks still add up.
func TestEngineStateCountsPipelineAndExpertRanksOnce(t *testing.T) {
	page := `sglang:num_running_reqs{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 4
sglang:num_running_reqs{engine_type="unified",model_name="m",moe_ep_rank="1",pp_rank="0",tp_rank="1"} 4
sglang:num_running_reqs{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="1",tp_rank="0"} 4
sglang:num_running_reqs{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0",dp_rank="1"} 2
sglang:num_queue_reqs{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 1
sglang:num_queue_reqs{engine_type="unified",model_name="m",moe_ep_rank="1",pp_rank="0",tp_rank="1"} 1
sglang:token_usage{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0"} 0.5
sglang:token_usage{engine_type="unified",model_name="m",moe_ep_rank="1",pp_rank="1",tp_rank="1"} 0.5
sglang:token_usage{engine_type="unified",model_name="m",moe_ep_rank="0",pp_rank="0",tp_rank="0",dp_rank="1"} 0.25
`
	s, err := ParseMetrics([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	got := EngineStateOf(s)
	want := EngineState{"sglang", 6, 1, 0.375}
	if !stateEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestEngineCapacitySGLangPerExpertRank(t *testing.T) {
	page := "sglang:max_total_num_tokens{model_name=\"m\",moe_ep_rank=\"0\",pp_rank=\"0\",tp_rank=\"0\"} 471258.0\n" +
		"sglang:max_total_num_tokens{model_name=\"m\",moe_ep_rank=\"1\",pp_rank=\"0\",tp_rank=\"1\"} 471258.0\n" +
		"sglang:max_total_num_tokens{model_name=\"m\",moe_ep_rank=\"0\",pp_rank=\"1\",tp_rank=\"0\"} 471258.0\n"
	c, err := EngineCapacityOf([]byte(page))
	if err != nil || c == nil || c.Tokens != 471258 {
		t.Fatalf("got %+v, %v; want 471258 tokens", c, err)
	}
}
