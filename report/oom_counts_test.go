package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// A plan stopped by an out-of-memory batch counts the same requests,
// completions and failures from its summary as from its trace, the rows
// the stop kept from arriving included, so its failure share is one.
func TestOOMRunCountsAgreeWithItsTrace(t *testing.T) {
	p, err := plan.Parse([]byte(`
[model]
name = "Llama-3.1-8B"
weight_version = "meta-llama/Llama-3.1-8B-Instruct"
precision = "bf16"
max_new_tokens = 1024

[batch]
strategy = "fixed"
batch_size = 32
max_wait_ms = 100
prefix_caching = false

[device]
model = "H100-SXM-80G"
count = 1
gpu_memory_utilization = 0.9
block_size = 16
max_model_len = 8192
memory_limit_gib = 20

[cost]
usd_per_hour = 2.99
usd_per_kwh = 0.10
pue = 1.2
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	src, err := traces.Import("../testdata/azure2023/AzureLLMInferenceTrace_conv.csv", traces.FormatAuto, traces.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	in := traces.Slice(src, 0, 0, 500)
	path := filepath.Join(t.TempDir(), "oom.parquet")
	w, err := traces.Create(path, r.ResultMeta(in.Meta(), "roofline", "test", "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Simulate(t.Context(), "oom", in, w, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Outcome, "out of KV memory") {
		t.Fatalf("outcome %q: want an out-of-memory stop", res.Outcome)
	}
	fromTrace, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	s, tr := resultRun(res).Metrics, fromTrace.Metrics
	if s.Requests != tr.Requests || s.Completed != tr.Completed || s.Failed != tr.Failed || tr.Requests != 500 {
		t.Errorf("summary: %d/%d · %d; trace: %d/%d · %d (500 requests)",
			s.Completed, s.Requests, s.Failed, tr.Completed, tr.Requests, tr.Failed)
	}
}
