package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/traces"
)

// storedPlan is a sweep candidate's plan as cmd/servesim/testdata/
// candidates.json holds it.
const storedPlan = "[batch]\nchunked_prefill = true\nmax_num_batched_tokens = 8192\nmax_num_seqs = 128\nprefix_caching = false\nstrategy = \"continuous\"\n\n" +
	"[cost]\npue = 1.2\nusd_per_hour = 2.99\nusd_per_kwh = 0.1\n\n" +
	"[device]\nblock_size = 16\ncount = 1\ngpu_memory_utilization = 0.9\nmax_model_len = 8192\nmodel = \"H100-SXM-80G\"\n\n" +
	"[model]\nmax_new_tokens = 1024\nname = \"Llama-3.1-8B\"\nprecision = \"bf16\"\nweight_version = \"meta-llama/Llama-3.1-8B-Instruct\"\n"

// oldPlan is storedPlan as a file written before batch.prefix_caching was
// required holds it.
var oldPlan = strings.Replace(storedPlan, "prefix_caching = false\n", "", 1)

const oldPlanLimit = "seqs=128 tok=8192 chunked prefix_caching unset"

// A sweep row whose plan predates batch.prefix_caching keeps its batch
// limit, marked, rather than showing none.
func TestRowRunOfPlanWithoutPrefixCaching(t *testing.T) {
	sw := &Sweep{Name: "s", Path: "s.parquet"}
	if got := RowRun(sw, &sweep.Row{Label: "a", PlanTOML: storedPlan}).BatchLimit; got != "seqs=128 tok=8192 chunked" {
		t.Errorf("current plan: BatchLimit = %q", got)
	}
	if got := RowRun(sw, &sweep.Row{Label: "a", PlanTOML: oldPlan}).BatchLimit; got != oldPlanLimit {
		t.Errorf("plan without prefix_caching: BatchLimit = %q, want %q", got, oldPlanLimit)
	}
}

// A simulated trace whose metadata plan predates batch.prefix_caching
// keeps its plan's batch limit and block size.
func TestTraceRunOfPlanWithoutPrefixCaching(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim.parquet")
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens = fmt.Sprint(0), 100, 10
	r.FirstToken, r.LastToken, r.HTTPStatus = 1e9, 2e9, 200
	meta := traces.Meta{Source: "simulated", BatchPolicy: "continuous", Extra: map[string]string{"plan": oldPlan}}
	if err := traces.WriteAll(path, meta, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	run, err := TraceRun(t.Context(), path, traces.SLO{})
	if err != nil {
		t.Fatal(err)
	}
	if run.BatchLimit != oldPlanLimit || run.BlockSize != 16 {
		t.Errorf("BatchLimit %q, BlockSize %d; want %q, 16", run.BatchLimit, run.BlockSize, oldPlanLimit)
	}
}
