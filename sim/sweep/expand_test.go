package sweep

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
)

func TestExpandCanonicalOrderNoDuplicates(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["continuous", "fixed", "serial"]
"batch.max_num_seqs" = [16, 64]
"batch.max_num_batched_tokens" = [4096, 8192]
"batch.batch_size" = [4, 8]
"batch.max_wait_ms" = [0, 50]
"device.count" = [1, 2]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	// continuous: 2 counts × 2 seqs × 2 tokens; fixed: 2 × 2 × 2; serial: 2.
	if len(ex.Configs) != 8+8+2 {
		t.Fatalf("%d configs, want 18", len(ex.Configs))
	}
	wantFirst := []string{
		"continuous count=1 max_num_seqs=16 max_num_batched_tokens=4096",
		"continuous count=1 max_num_seqs=16 max_num_batched_tokens=8192",
		"continuous count=1 max_num_seqs=64 max_num_batched_tokens=4096",
	}
	for i, w := range wantFirst {
		if ex.Configs[i].Label != w {
			t.Errorf("config %d = %q, want %q", i, ex.Configs[i].Label, w)
		}
	}
	if l := ex.Configs[8].Label; l != "fixed count=1 batch_size=4 max_wait_ms=0" {
		t.Errorf("config 8 = %q", l)
	}
	if l := ex.Configs[17].Label; l != "serial count=2" {
		t.Errorf("config 17 = %q", l)
	}
	seen := map[string]int{}
	for i, c := range ex.Configs {
		if c.Index != i {
			t.Errorf("config %d has Index %d", i, c.Index)
		}
		if j, dup := seen[c.PlanTOML]; dup {
			t.Errorf("configs %d and %d have the same plan", j, i)
		}
		seen[c.PlanTOML] = i
		p, err := plan.Parse([]byte(c.PlanTOML))
		if err != nil {
			t.Fatalf("config %d: its plan does not parse: %v", i, err)
		}
		// keys of other strategies are not in the plan
		if p.Batch.Strategy != "continuous" && strings.Contains(c.PlanTOML, "max_num_seqs") {
			t.Errorf("config %d (%s) carries max_num_seqs:\n%s", i, c.Label, c.PlanTOML)
		}
		if p.Batch.Strategy != "fixed" && strings.Contains(c.PlanTOML, "batch_size") {
			t.Errorf("config %d (%s) carries batch_size", i, c.Label)
		}
	}
}

func TestExpandSkips(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"model.precision" = ["bf16", "fp8"]
"batch.max_num_seqs" = [16, 64, 256]
"batch.max_num_batched_tokens" = [32, 8192]
"device.count" = [1, 2, 3]
[constraints]
skip_if = ["batch.max_num_batched_tokens < batch.max_num_seqs", 'model.precision == "fp8" && batch.max_num_seqs > 64']
max_devices = 2
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if len(ex.Configs) != 2*3*2*3 {
		t.Fatalf("%d configs", len(ex.Configs))
	}
	// device.count = 3 does not divide Llama-3.1-8B's 32 heads: invalid,
	// unless skip_if or max_devices came first.
	count := map[string]int{}
	for _, c := range ex.Configs {
		p := c.Plan
		want := ""
		switch {
		case p.Batch.MaxNumBatchedTokens < p.Batch.MaxNumSeqs:
			want = SkipIf
		case p.Model.Precision == "fp8" && p.Batch.MaxNumSeqs > 64:
			want = SkipIf
		case p.Device.Count > 2:
			want = SkipMaxDevices
		}
		if c.Skip != want {
			t.Errorf("%s: skip %q (%s), want %q", c.Label, c.Skip, c.SkipDetail, want)
		}
		if (c.Skip == "") != (c.Resolved != nil) {
			t.Errorf("%s: skip %q but resolved %v", c.Label, c.Skip, c.Resolved != nil)
		}
		count[c.Skip]++
	}
	for k, n := range ex.Skipped {
		if count[k] != n {
			t.Errorf("Skipped[%s] = %d, counted %d", k, n, count[k])
		}
	}
	if ex.Runnable() != count[""] {
		t.Errorf("Runnable = %d, want %d", ex.Runnable(), count[""])
	}
}

func TestExampleSpecHasOver1000Configs(t *testing.T) {
	s, err := LoadSpec("testdata/llama8b-h100-azure-conv.toml")
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	if ex.Runnable() < 1000 {
		t.Errorf("%d runnable configs, want ≥ 1000", ex.Runnable())
	}
}

// A static config reserves prompt + max_new_tokens per request, but never
// past max_model_len, which the KV cache holds: a max_new_tokens larger
// than the cache runs, as under continuous batching.
func TestExpandRunsAStaticMaxNewTokensPastTheCache(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["continuous", "serial"]
"model.max_new_tokens" = [1024, 2000000]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range mustExpand(t, s).Configs {
		if c.Skip != "" {
			t.Errorf("%s: skip %q (%s), want it run", c.Label, c.Skip, c.SkipDetail)
		}
	}
}

// Values each fine on their own that break a rule between them (no engine
// starts with max_num_batched_tokens below max_num_seqs) are a point of the
// cross product to skip as invalid; a value wrong on its own, or a base
// plan that breaks a rule with nothing swept, fails the sweep.
func TestExpandSkipsInvalidCombinations(t *testing.T) {
	t.Run("skipped", func(t *testing.T) {
		_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.strategy" = ["continuous", "token_budget"]
"batch.max_num_seqs" = [16, 512]
"batch.max_num_batched_tokens" = [256, 4096]
"batch.max_token_budget" = [2048]
"batch.max_wait_ms" = [10]
"model.max_new_tokens" = [1024, 4096]
"device.max_model_len" = [8, 8192]
`+sloTOML)
		if err != nil {
			t.Fatal(err)
		}
		ex := mustExpand(t, s)
		want := map[string]string{} // label → what the detail names
		for _, c := range ex.Configs {
			p := c.Plan
			switch {
			case p.Device.BlockSize > p.Device.MaxModelLen:
				want[c.Label] = "device.block_size: must be in [1, device.max_model_len (8)], got 16"
			case p.Batch.Strategy == "continuous" && p.Batch.MaxNumBatchedTokens < p.Batch.MaxNumSeqs:
				want[c.Label] = "batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (512) so every running sequence can decode, got 256"
			case p.Batch.Strategy == "token_budget" && p.Batch.MaxTokenBudget <= p.Model.MaxNewTokens:
				want[c.Label] = "batch.max_token_budget: must be ≥ 4097"
			}
		}
		if len(want) != 13 || len(ex.Configs) != 20 {
			t.Fatalf("%d configs, %d expected to be skipped: the spec no longer tests what it should", len(ex.Configs), len(want))
		}
		for _, c := range ex.Configs {
			w, skip := want[c.Label]
			if !skip {
				if c.Skip != "" || c.Resolved == nil {
					t.Errorf("%s: skipped %q (%s), want it run", c.Label, c.Skip, c.SkipDetail)
				}
				continue
			}
			if c.Skip != SkipInvalid || !strings.Contains(c.SkipDetail, w) || c.Resolved != nil {
				t.Errorf("%s: skip %q (%s), want %q naming %q", c.Label, c.Skip, c.SkipDetail, SkipInvalid, w)
			}
		}
		if ex.Skipped[SkipInvalid] != 13 || ex.Runnable() != 7 {
			t.Errorf("skipped %v, %d runnable; want 13 invalid, 7 runnable", ex.Skipped, ex.Runnable())
		}
	})
	for _, c := range []struct{ name, body, want string }{
		{"a swept value wrong on its own", `"batch.max_num_batched_tokens" = [0, 4096]`,
			"(continuous max_num_batched_tokens=0): batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (256)"},
		{"every combination broken", `"batch.max_num_batched_tokens" = [128]`,
			"every one of the 1 configs is skipped (1 invalid); e.g. continuous max_num_batched_tokens=128: batch.max_num_batched_tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, s, err := writeSpec(t, "base = \"base.toml\"\n[sweep]\n"+c.body+"\n"+sloTOML)
			if err == nil {
				_, err = Expand(s, model.DefaultCatalog())
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant it to name %s and %q", err, path, c.want)
			}
		})
	}
	t.Run("base plan broken, nothing of it swept", func(t *testing.T) {
		base, err := loadWithBase(t, "max_num_batched_tokens = 8192", "max_num_batched_tokens = 100",
			"[sweep]\n\"device.gpu_memory_utilization\" = [0.8, 0.9]\n")
		want := "base " + base + ": line 10: batch.max_num_batched_tokens: must be ≥ batch.max_num_seqs (256)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	})
}

// Without chunked prefill no engine starts with max_num_batched_tokens
// below max_model_len; a combination that has it is skipped, whichever of
// the three keys is swept.
func TestExpandSkipsUnchunkedBudgetBelowModelLen(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"batch.chunked_prefill" = [true, false]
"batch.max_num_batched_tokens" = [4096, 8192]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range mustExpand(t, s).Configs {
		b := c.Plan.Batch
		if !b.ChunkedPrefill && b.MaxNumBatchedTokens < c.Plan.Device.MaxModelLen {
			if c.Skip != SkipInvalid || !strings.Contains(c.SkipDetail, "batch.max_num_batched_tokens: must be ≥ device.max_model_len (8192)") {
				t.Errorf("%s: skip %q (%s), want it skipped as invalid", c.Label, c.Skip, c.SkipDetail)
			}
		} else if c.Skip != "" {
			t.Errorf("%s: skip %q (%s), want it run", c.Label, c.Skip, c.SkipDetail)
		}
	}
	// Only chunked_prefill swept: the base's budget is fine on its own.
	_, s, err = writeSpec(t, `base = "base.toml"
[sweep]
"batch.chunked_prefill" = [true, false]
"device.max_model_len" = [4096, 16384]
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, c := range mustExpand(t, s).Configs {
		if c.Skip == SkipInvalid {
			skipped++
		}
	}
	if skipped != 1 {
		t.Errorf("%d configs skipped as invalid, want 1 (unchunked, max_model_len 16384)", skipped)
	}
}
