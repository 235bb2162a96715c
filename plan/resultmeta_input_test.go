package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A simulated trace of a measured input says what this run was (the
// plan's device, batch policy, precision, this build) and keeps what the
// input's run was under input_ names, as record and trace scale do: a
// live input's device and batching, a simulated input's plan, profile
// and closed loop. Dropped, the simulated trace no longer says which run
// measured the rows it was simulated from.
func TestResultMetaKeepsTheInputsRunUnderInputNames(t *testing.T) {
	r := mustResolve(t, valid)
	in := traces.Meta{Source: "live", Engine: "vllm 0.6", Device: "2× A100", BatchPolicy: "vllm max_num_seqs=64",
		Precision: "fp8", WeightVersion: "org/model-fp8", ToolVersion: "v0.9"}
	in.Set("plan", "[model]\nname = \"earlier\"\n")
	in.Set("step_model", "profile p.json")
	in.Set("profile", "p.json")
	in.Set("closed_loop", "4")
	in.Set("seed", "7")
	m := r.ResultMeta(in, "roofline prior (uncalibrated)", "v1.0", "", "", "")
	for k, want := range map[string]string{
		"input_source": "live", "input_engine": "vllm 0.6", "input_device": "2× A100",
		"input_batch_policy": "vllm max_num_seqs=64", "input_precision": "fp8",
		"input_weight_version": "org/model-fp8", "input_tool_version": "v0.9",
		"input_plan": in.Extra["plan"], "input_step_model": "profile p.json", "input_profile": "p.json",
		"input_closed_loop": "4", "seed": "7", "step_model": "roofline prior (uncalibrated)",
	} {
		if m.Extra[k] != want {
			t.Errorf("Extra[%q] = %q, want %q", k, m.Extra[k], want)
		}
	}
	for _, k := range []string{"profile", "closed_loop"} {
		if v, ok := m.Extra[k]; ok {
			t.Errorf("Extra[%q] = %q: the input's run, kept as if it were this one's", k, v)
		}
	}
	if m.Device == in.Device || m.BatchPolicy == in.BatchPolicy || m.ToolVersion != "v1.0" || m.Extra["plan"] == in.Extra["plan"] {
		t.Errorf("device %q, batch policy %q, tool version %q, plan %q: want this run's", m.Device, m.BatchPolicy, m.ToolVersion, m.Extra["plan"])
	}
}

// A simulation of a recording of a simulated trace: the recording ran on
// an engine it does not name, and the earlier simulation's plan and
// device must not stand in for it under input_ names.
func TestResultMetaOfARecordingNamesOnlyTheRecording(t *testing.T) {
	r := mustResolve(t, valid)
	in := traces.Meta{Source: "live"}
	in.Set("replay.arrival", "open")
	in.Set("input_source", "simulated")
	in.Set("input_device", "8× H100")
	in.Set("input_plan", "[model]\nname = \"earlier\"\n")
	m := r.ResultMeta(in, "roofline prior (uncalibrated)", "v1.0", "", "", "")
	if m.Extra["input_source"] != "live" || m.Extra["input_replay.arrival"] != "open" {
		t.Errorf("input_source %q, input_replay.arrival %q: want the recording's, live and open",
			m.Extra["input_source"], m.Extra["input_replay.arrival"])
	}
	for _, k := range []string{"input_device", "input_plan"} {
		if v, ok := m.Extra[k]; ok {
			t.Errorf("Extra[%q] = %q: the earlier simulation's, named as the recording's", k, v)
		}
	}
}

// A simulated trace names its precision as it names its model and device,
// by the catalog's name: a plan's alias ("bfloat16", " BF16") was written
// as it stood, and two runs of one precision read as different ones.
func TestResultMetaNamesThePrecisionByItsCanonicalName(t *testing.T) {
	for _, alias := range []string{"bfloat16", " BF16"} {
		r := mustResolve(t, strings.Replace(valid, `precision = "bf16"`, `precision = "`+alias+`"`, 1))
		m := r.ResultMeta(traces.Meta{Source: "live"}, "roofline prior (uncalibrated)", "v1.0", "", "", "")
		if m.Precision != "bf16" {
			t.Errorf("precision %q: meta precision = %q, want bf16", alias, m.Precision)
		}
	}
}
