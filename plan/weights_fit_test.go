package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// Weights that do not fit the usable memory are a bad value of the plan
// file like a max_model_len the cache cannot hold: the error names the
// key and its line, and the keys that change the fit. It named neither
// ("Llama-3.1-8B on 1× H100-SXM-80G: model: ... does not fit").
func TestResolveNamesTheKeyOfWeightsThatDoNotFit(t *testing.T) {
	path := writePlan(t, strings.Replace(valid, "gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.2", 1))
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(model.DefaultCatalog())
	if err == nil || !strings.HasPrefix(err.Error(), "line 17: device.gpu_memory_utilization: ") ||
		!strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "device.count") {
		t.Errorf("err = %v\nwant line 17: device.gpu_memory_utilization: ... does not fit ... device.count", err)
	}
}

// vLLM reserves activation memory for its largest step, which
// max_num_batched_tokens sizes: a budget whose reserve fills the memory
// beside weights that fit is named among the keys to change. Only
// utilization, device count and precision were.
func TestResolveNamesTheTokenBudgetWhoseReserveDoesNotFit(t *testing.T) {
	path := writePlan(t, strings.Replace(valid, "max_num_batched_tokens = 8192", "max_num_batched_tokens = 10000000", 1))
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(model.DefaultCatalog())
	if err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "lower batch.max_num_batched_tokens") {
		t.Errorf("err = %v\nwant ... does not fit ... lower batch.max_num_batched_tokens", err)
	}
	// weights that do not fit at all are not the budget's doing
	path = writePlan(t, strings.Replace(valid, "gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.1", 1))
	if p, err = Load(path); err != nil {
		t.Fatal(err)
	}
	if _, err = p.Resolve(model.DefaultCatalog()); err == nil || strings.Contains(err.Error(), "max_num_batched_tokens") {
		t.Errorf("err = %v\nwant weights that do not fit, without naming max_num_batched_tokens", err)
	}
}

// The sampler's logits (max_num_seqs × vocab × 4 bytes) are part of the
// reserve too: weights that fit beside the least reserve, with too many
// sequence slots to sample, are a KV cache too small, naming
// batch.max_num_seqs, not weights that do not fit.
func TestResolveNamesTheSequencesWhoseLogitsDoNotFit(t *testing.T) {
	text := strings.NewReplacer("gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.25", "max_num_seqs = 256", "max_num_seqs = 8192").Replace(valid)
	p, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Resolve(model.DefaultCatalog())
	if !errors.Is(err, ErrKVTooSmall) || errors.Is(err, ErrWeightsDoNotFit) || !strings.Contains(err.Error(), "lower batch.max_num_seqs") {
		t.Errorf("err = %v\nwant a KV cache too small, naming lower batch.max_num_seqs", err)
	}
	// 256 sequences' logits fit there
	p, err = Parse([]byte(strings.Replace(text, "max_num_seqs = 8192", "max_num_seqs = 256", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(model.DefaultCatalog()); err != nil {
		t.Errorf("256 sequences at utilization 0.25: %v", err)
	}
}
