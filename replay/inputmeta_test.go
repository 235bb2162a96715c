package replay

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A recording replays the input's rows against another engine: what the
// input says of the engine, device and batching it ran on, and its own
// recording's notes (proxy.*, replay.*), describe the input, not this
// run. Kept under their own names, a report would take the input's
// device count for this run's device-seconds, and proxy.clock would say
// this run's times count from the proxy's start.
func TestOutputMetaKeepsTheInputsRunUnderInputNames(t *testing.T) {
	in := traces.Meta{Source: "proxy", Model: "big", Engine: "vllm 0.6", EngineArgs: "--tp 2",
		Device: "2× A100", BatchPolicy: "continuous max_num_seqs=256", BlockSize: 512}
	in.Set("proxy.clock", "arrival_ns and every other time: ns since proxy.start")
	in.Set("replay.input_block_size", "16") // an earlier recording's
	in.Set("plan", "[model]\nname = \"big\"\n")
	in.Set("seed", "7")
	m := OutputMeta(in, testConfig(nil), 1)
	if m.Engine != "" || m.EngineArgs != "" || m.Device != "" || m.BatchPolicy != "" {
		t.Errorf("engine %q, args %q, device %q, batch policy %q: want none, this run's are not known",
			m.Engine, m.EngineArgs, m.Device, m.BatchPolicy)
	}
	for k, want := range map[string]string{
		"input_engine": "vllm 0.6", "input_engine_args": "--tp 2", "input_device": "2× A100",
		"input_batch_policy": "continuous max_num_seqs=256", "input_proxy.clock": in.Extra["proxy.clock"],
		"input_replay.input_block_size": "16", "input_plan": in.Extra["plan"], "seed": "7",
	} {
		if m.Extra[k] != want {
			t.Errorf("Extra[%q] = %q, want %q", k, m.Extra[k], want)
		}
	}
	for _, k := range []string{"proxy.clock", "replay.input_block_size", "plan"} {
		if v, ok := m.Extra[k]; ok {
			t.Errorf("Extra[%q] = %q: the input's, kept as if it were this run's", k, v)
		}
	}
	if in.Extra["proxy.clock"] == "" || in.Device != "2× A100" {
		t.Error("OutputMeta changed its input")
	}
}

// A recording of a recording: the input's own replay.* settings are the
// input_replay.* ones, whatever its older input_replay.* keys said.
func TestOutputMetaOfARecordingOfARecording(t *testing.T) {
	for range 20 { // map order varies from run to run
		in := traces.Meta{Source: "live"}
		in.Set("replay.arrival", "closed")
		in.Set("input_replay.arrival", "open")
		if got := OutputMeta(in, testConfig(nil), 1).Extra["input_replay.arrival"]; got != "closed" {
			t.Fatalf("input_replay.arrival = %q, want the input's own replay.arrival, closed", got)
		}
	}
}

// A recording of a simulated trace keeps the catalog that simulation read
// under an input_ name, as its plan and profile: this run read none.
func TestOutputMetaKeepsASimulatedInputsCatalogUnderInputNames(t *testing.T) {
	in := traces.Meta{Source: "simulated"}
	in.Set("catalog_sha256", "abc123")
	m := OutputMeta(in, testConfig(nil), 1)
	if v, ok := m.Extra["catalog_sha256"]; ok || m.Extra["input_catalog_sha256"] != "abc123" {
		t.Errorf("catalog_sha256 %q (set %v), input_catalog_sha256 %q: want only input_catalog_sha256 abc123",
			v, ok, m.Extra["input_catalog_sha256"])
	}
}

// The input's source is kept as input_source, as simulate and trace scale
// keep it. Under another name, a recording of a simulated trace kept the
// simulation's own input_source (synthetic) beside input_plan, as if the
// rows it replayed had been drawn, not simulated.
func TestOutputMetaKeepsTheInputsSourceAsInputSource(t *testing.T) {
	in := traces.Meta{Source: "simulated"}
	in.Set("input_source", "synthetic")
	in.Set("plan", "[model]\nname = \"big\"\n")
	m := OutputMeta(in, testConfig(nil), 1)
	if got := m.Extra["input_source"]; got != "simulated" {
		t.Errorf("input_source = %q, want the input's own source, simulated", got)
	}
	if v, ok := m.Extra["replay.input_source"]; ok {
		t.Errorf("replay.input_source = %q: want the input's source under input_source alone", v)
	}
}

// A recording of a simulation of a live recording: the input_ names are
// the simulation's alone. The earlier recording's engine and replay.*
// settings, kept beside input_source=simulated, would say the simulation
// ran on that engine with those settings.
func TestOutputMetaOfASimulationNamesOnlyTheSimulation(t *testing.T) {
	in := traces.Meta{Source: "simulated", Device: "2× H100"}
	in.Set("plan", "[model]\nname = \"big\"\n")
	in.Set("input_source", "live")
	in.Set("input_engine", "vllm 0.6")
	in.Set("input_replay.arrival", "open")
	m := OutputMeta(in, testConfig(nil), 1)
	for k, want := range map[string]string{"input_source": "simulated", "input_device": "2× H100", "input_plan": in.Extra["plan"]} {
		if m.Extra[k] != want {
			t.Errorf("Extra[%q] = %q, want %q", k, m.Extra[k], want)
		}
	}
	for _, k := range []string{"input_engine", "input_replay.arrival"} {
		if v, ok := m.Extra[k]; ok {
			t.Errorf("Extra[%q] = %q: the simulation's input's, named as the simulation's", k, v)
		}
	}
}
