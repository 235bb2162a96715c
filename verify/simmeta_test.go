package verify

import (
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// A candidate's simulated trace is described as simulate describes one:
// the live input's engine and recording settings are the input's, kept
// under input_ names, not claimed for the simulated run.
func TestSimulatedCandidateMetaSetsTheInputsRunApart(t *testing.T) {
	dir := t.TempDir()
	var r traces.Request
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens = "a", 100, 3
	in := filepath.Join(dir, "input.parquet")
	meta := traces.Meta{Source: "live", Engine: "vllm 0.8", EngineArgs: "--max-num-seqs 8"}
	meta.Set("replay.arrival", "closed")
	if err := traces.WriteAll(in, meta, []*traces.Request{&r}); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Load("../cmd/servesim/defaults/1-serial.toml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rank01.sim.parquet")
	if _, _, err := simulate(t.Context(), res, dir, out, "rank01", 1, nil, "roofline prior (uncalibrated)", simSource{input: in}); err != nil {
		t.Fatal(err)
	}
	got, _, err := traces.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Engine != "" || got.EngineArgs != "" || got.Extra["input_engine"] != "vllm 0.8" || got.Extra["input_engine_args"] != "--max-num-seqs 8" {
		t.Errorf("engine %q, engine_args %q, input_engine %q: the simulated run ran no engine",
			got.Engine, got.EngineArgs, got.Extra["input_engine"])
	}
	if _, ok := got.Extra["replay.arrival"]; ok || got.Extra["input_replay.arrival"] != "closed" {
		t.Errorf("the recording's settings are not set apart as the input's: %v", got.Extra)
	}
	if got.Extra["input_source"] != "live" || got.Source != "simulated" {
		t.Errorf("source %q, input_source %q: want simulated from a live input", got.Source, got.Extra["input_source"])
	}
}
