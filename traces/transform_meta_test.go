package traces

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func liveMeta() Meta {
	m := Meta{Source: "live", Model: "m", Engine: "vllm 0.6", Device: "1× H100", BatchPolicy: "continuous max_num_seqs=8"}
	m.Set("replay.arrival", "closed")
	m.Set("replay.status", "complete")
	m.Set("seed", "7")
	return m
}

// A scaled, spread or unmoored sliced recording is an input trace: its
// observed columns are cleared, so the metadata must not go on saying it
// was measured live on the recording's engine and device, with
// replay.status=complete, for rows no run answered.
func TestTransformedInputDropsRunClaims(t *testing.T) {
	check := func(name string, m Meta) {
		t.Helper()
		if m.Source == "live" || m.Engine != "" || m.Device != "" || m.BatchPolicy != "" {
			t.Errorf("%s: source %q engine %q device %q batch policy %q: claims of a run its rows no longer hold",
				name, m.Source, m.Engine, m.Device, m.BatchPolicy)
		}
		for k := range m.Extra {
			if strings.HasPrefix(k, "replay.") {
				t.Errorf("%s: %s=%s kept as this file's", name, k, m.Extra[k])
			}
		}
		for k, want := range map[string]string{"input_source": "live", "input_device": "1× H100", "input_replay.arrival": "closed", "seed": "7"} {
			if m.Extra[k] != want {
				t.Errorf("%s: %s = %q, want %q", name, k, m.Extra[k], want)
			}
		}
		if m.Model != "m" {
			t.Errorf("%s: model %q, want m", name, m.Model)
		}
	}
	s, err := Scale(&sliceReader{meta: liveMeta(), rows: rowsAt(0, 10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	check("scale", s.Meta())
	check("closed-loop slice", Slice(&sliceReader{meta: liveMeta(), rows: rowsAt(0, 10)}, 5, 0, 0).Meta())

	path := filepath.Join(t.TempDir(), "rec.parquet")
	if err := WriteAll(path, liveMeta(), rowsAt(0, 0)); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatServesim, ImportOptions{Spread: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("spread", r.Meta())

	// A recording sliced on its own clock keeps its rows' measurements,
	// and with them the run that made them.
	m := liveMeta()
	m.Set("replay.arrival", "open")
	if got := Slice(&sliceReader{meta: m, rows: rowsAt(0, 10)}, 5, 0, 0).Meta(); got.Source != "live" || got.Device != "1× H100" {
		t.Errorf("open-loop slice: source %q device %q, want live on 1× H100", got.Source, got.Device)
	}
}

// A proxy recording's times are ns since proxy.start: re-based to the
// window start, they are ns since a later instant, which the slice must
// name, else a row's wall-clock time comes out early by --from.
func TestSliceMovesProxyStart(t *testing.T) {
	m := Meta{Source: "proxy"}
	m.Set("proxy.start", "2026-01-02T03:04:05.5Z")
	got := Slice(&sliceReader{meta: m, rows: rowsAt(0, 10)}, int64(90*time.Second), 0, 0).Meta()
	if v, want := got.Extra["proxy.start"], "2026-01-02T03:05:35.5Z"; v != want {
		t.Errorf("proxy.start = %q, want %q", v, want)
	}
}

// The precision, weights and build a run served with describe the run, as
// its engine and device do: an input trace made from a recording keeps
// them under input_ names, as record and simulate keep their input's. A
// synthetic trace's build drew its rows and stays its own.
func TestTransformedInputMovesRunBuild(t *testing.T) {
	m := liveMeta()
	m.Precision, m.WeightVersion, m.ToolVersion = "fp8", "rev-3", "v1.2.0"
	s, err := Scale(&sliceReader{meta: m, rows: rowsAt(0, 10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Meta()
	if got.Precision != "" || got.WeightVersion != "" || got.ToolVersion != "" {
		t.Errorf("precision %q, weight version %q, tool version %q kept as the scaled trace's: want them moved",
			got.Precision, got.WeightVersion, got.ToolVersion)
	}
	for k, want := range map[string]string{"input_precision": "fp8", "input_weight_version": "rev-3", "input_tool_version": "v1.2.0"} {
		if got.Extra[k] != want {
			t.Errorf("%s = %q, want %q", k, got.Extra[k], want)
		}
	}

	synth := Meta{Source: "synthetic", ToolVersion: "v1.2.0"}
	if s, err = Scale(&sliceReader{meta: synth, rows: rowsAt(0, 10)}, 2); err != nil {
		t.Fatal(err)
	}
	if got := s.Meta(); got.ToolVersion != "v1.2.0" || got.Extra["input_tool_version"] != "" {
		t.Errorf("synthetic: tool version %q, input_tool_version %q: want the build that drew the rows kept as is",
			got.ToolVersion, got.Extra["input_tool_version"])
	}
}

// A proxy recording's times were measured through the proxy: scaled, they
// are cleared, and the trace must not go on calling itself a proxy
// recording, made by the build that recorded it, for rows no one timed.
func TestScaledProxyRecordingMovesItsSource(t *testing.T) {
	m := Meta{Source: "proxy", ToolVersion: "v1.2.0"}
	m.Set("proxy.start", "2026-01-02T03:04:05.5Z")
	s, err := Scale(&sliceReader{meta: m, rows: rowsAt(0, 10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Meta()
	if got.Source != "" || got.ToolVersion != "" {
		t.Errorf("source %q, tool version %q kept as the scaled trace's: want them moved", got.Source, got.ToolVersion)
	}
	for k, want := range map[string]string{"input_source": "proxy", "input_tool_version": "v1.2.0", "input_proxy.start": "2026-01-02T03:04:05.5Z"} {
		if got.Extra[k] != want {
			t.Errorf("%s = %q, want %q", k, got.Extra[k], want)
		}
	}
}

// A new run (record, simulate) replaces whatever made the trace, an
// import included; an input trace made from an import keeps its source
// and the build that imported it, which still describe its rows.
func TestMoveRunToInputOfAnImport(t *testing.T) {
	for _, newRun := range []bool{true, false} {
		m := Meta{Source: "azure-2023-conv", ToolVersion: "v1.2.0", Device: "1× H100"}
		m.Set("input_source", "live") // an earlier run's
		m.MoveRunToInput(newRun)
		wantSource, wantInput := "azure-2023-conv", "live"
		if newRun {
			wantSource, wantInput = "", "azure-2023-conv"
		}
		if m.Source != wantSource || m.Extra["input_source"] != wantInput || m.Device != "" || m.Extra["input_device"] != "1× H100" {
			t.Errorf("new run %v: source %q, input_source %q, device %q, input_device %q: want %q, %q, none, 1× H100",
				newRun, m.Source, m.Extra["input_source"], m.Device, m.Extra["input_device"], wantSource, wantInput)
		}
		if got := m.ToolVersion == ""; got != newRun {
			t.Errorf("new run %v: tool version %q, input_tool_version %q", newRun, m.ToolVersion, m.Extra["input_tool_version"])
		}
	}
}

// The input_ names describe one run, the input's: a simulation of a live
// recording, scaled, names the simulation (no engine of its own) and not
// the recording's engine and replay settings beside input_source=simulated.
func TestScaledSimulationNamesOnlyItsOwnRun(t *testing.T) {
	sim := liveMeta()
	sim.MoveRunToInput(true)
	sim.Source, sim.Device = "simulated", "2× H100"
	sim.Set("plan", "[model]\nname = \"m\"\n")
	s, err := Scale(&sliceReader{meta: sim, rows: rowsAt(0, 10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Meta()
	for k, want := range map[string]string{"input_source": "simulated", "input_device": "2× H100", "input_plan": sim.Extra["plan"], "seed": "7"} {
		if got.Extra[k] != want {
			t.Errorf("%s = %q, want %q", k, got.Extra[k], want)
		}
	}
	for _, k := range []string{"input_engine", "input_batch_policy", "input_replay.arrival", "input_input_source"} {
		if v, ok := got.Extra[k]; ok {
			t.Errorf("%s = %q: the recording's, named as if the simulation had run on it", k, v)
		}
	}
}

// A trace no run measured (a scaled one) keeps its input_ names when
// scaled again or sliced: they still name the run its rows came from.
func TestRescaledInputKeepsItsInputRun(t *testing.T) {
	s, err := Scale(&sliceReader{meta: liveMeta(), rows: rowsAt(0, 10)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = Scale(s, 3); err != nil {
		t.Fatal(err)
	}
	got := s.Meta()
	for k, want := range map[string]string{"input_source": "live", "input_engine": "vllm 0.6", "input_replay.arrival": "closed", "time_scale": "2*3"} {
		if got.Extra[k] != want {
			t.Errorf("%s = %q, want %q", k, got.Extra[k], want)
		}
	}
}

// A run of a scaled trace (verify simulates its input scaled, by 1 even)
// keeps the input_ names the scale left: the scaled trace has no run of
// its own, and they are all that says which run measured its rows.
func TestNewRunOnAScaledTraceKeepsItsInputRun(t *testing.T) {
	s, err := Scale(&sliceReader{meta: liveMeta(), rows: rowsAt(0, 10)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Meta().Clone()
	m.MoveRunToInput(true)
	for k, want := range map[string]string{"input_source": "live", "input_engine": "vllm 0.6", "input_replay.arrival": "closed"} {
		if m.Extra[k] != want {
			t.Errorf("%s = %q, want %q", k, m.Extra[k], want)
		}
	}
}
