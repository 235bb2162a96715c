package sweep

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

const azureConv = "../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv"

var (
	shortOnce  sync.Once
	shortTrace *Trace
	shortErr   error
)

// short is the first 300 requests of the Azure 2023 conversation trace.
func short(t testing.TB) *Trace {
	t.Helper()
	shortOnce.Do(func() {
		in, err := traces.Import(azureConv, traces.FormatAuto, traces.ImportOptions{})
		if err != nil {
			shortErr = err
			return
		}
		defer in.Close()
		shortTrace, shortErr = LoadTrace("azure-conv-head300", traces.Slice(in, 0, 0, 300))
	})
	if shortErr != nil {
		t.Fatal(shortErr)
	}
	return shortTrace
}

// writeSpec writes a spec next to a copy of the default continuous plan
// and loads it.
func writeSpec(t *testing.T, body string) (string, *Spec, error) {
	t.Helper()
	dir := t.TempDir()
	plan, err := os.ReadFile("../../cmd/servesim/defaults/4-continuous.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "base.toml"), plan, 0o644)
	path := filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte(body), 0o644)
	s, err := LoadSpec(path)
	return path, s, err
}

func mustExpand(t *testing.T, s *Spec) *Expansion {
	t.Helper()
	ex, err := Expand(s, model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

const sloTOML = "\n[slo]\nttft_p99_ms = 1500\ntpot_p99_ms = 40\n"
