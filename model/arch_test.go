package model

import (
	"math"
	"strings"
	"testing"
)

func mustArch(t *testing.T, name string) Arch {
	t.Helper()
	a, err := DefaultCatalog().Arch(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func TestLlama31_8B(t *testing.T) {
	a := mustArch(t, "Llama-3.1-8B")
	// 2 × 32 layers × 8 KV heads × 128 × 2 bytes.
	if got := a.KVBytesPerToken(FP16); got != 131072 {
		t.Errorf("KV bytes/token fp16 = %g, want 131072", got)
	}
	if got := a.KVBytesPerToken(FP8); got != 65536 {
		t.Errorf("KV bytes/token fp8 = %g, want 65536", got)
	}
	// 8.03e9 params × 2 bytes ≈ 16.06 GB.
	if got := a.WeightBytes(FP16); got != 16_060_522_496 {
		t.Errorf("weights fp16 = %g, want 16060522496 (≈16.06 GB)", got)
	}
	// int4 keeps the embedding and LM head (2 × 128,256 × 4,096) at 16
	// bits: 1.05e9 × 2 + 6.98e9 × (0.5 + 2.5/128) ≈ 5.73 GB, the size of
	// the published AWQ checkpoint with its group scales and zero points.
	emb := 2.0 * 128_256 * 4_096
	if got, want := a.WeightBytes(INT4), emb*2+(8_030_261_248-emb)*(0.5+2.5/128); got != want || got < 5.7e9 || got > 5.75e9 {
		t.Errorf("weights int4 = %g, want %g", got, want)
	}
	tied := a
	tied.TiedEmbeddings = true
	if got, want := tied.WeightBytes(FP8), emb/2*2+(8_030_261_248-emb/2); got != want {
		t.Errorf("weights fp8, tied embeddings = %g, want %g", got, want)
	}
	if got := a.FLOPsPerToken(); got != 16_060_522_496 {
		t.Errorf("FLOPs/token = %g", got)
	}
	// 4 × 32 × 32 × 128 = 524288 per (query, ctx) pair.
	if got := a.AttentionFLOPsPerQueryCtx(); got != 524288 {
		t.Errorf("attn FLOPs per pair = %g", got)
	}
	if got := a.AttentionFLOPs(10, 1000); got != 524288*10*1000 {
		t.Errorf("AttentionFLOPs(10,1000) = %g", got)
	}
}

func TestKVPerDeviceReplicatesHeads(t *testing.T) {
	a := mustArch(t, "Llama-3.1-70B") // 8 KV heads
	full := a.KVBytesPerToken(BF16)   // 2·80·8·128·2 = 327680
	if full != 327680 {
		t.Fatalf("70B KV/token = %g", full)
	}
	if got := a.KVBytesPerTokenPerDevice(BF16, 4); got != full/4 {
		t.Errorf("TP4 per device = %g, want %g", got, full/4)
	}
	// TP 16 > 8 KV heads: one head per rank, replicated, so the group holds 2×.
	if got := a.KVBytesPerTokenPerDevice(BF16, 16); got != full/8 {
		t.Errorf("TP16 per device = %g, want %g", got, full/8)
	}
}

func TestEstimateParamsMatchesPublished(t *testing.T) {
	c := DefaultCatalog()
	for _, name := range []string{"Llama-3.1-8B", "Llama-3.1-70B", "Llama-2-7B", "Llama-2-70B", "Mistral-7B", "Mistral-7B-v0.1", "Mixtral-8x7B"} {
		a, _ := c.Arch(name)
		total, active := a.EstimateParams()
		if total != a.Params || active != a.ActiveParams {
			t.Errorf("%s: estimate (%g, %g), catalog (%g, %g)", name, total, active, a.Params, a.ActiveParams)
		}
	}
	// Qwen2.5 has Q/K/V biases the estimate leaves out.
	for _, name := range []string{"Qwen2.5-7B", "Qwen2.5-72B"} {
		a, _ := c.Arch(name)
		total, _ := a.EstimateParams()
		if total >= a.Params || !near(total, a.Params, 1e-4) {
			t.Errorf("%s: estimate %g vs published %g", name, total, a.Params)
		}
	}
}

func TestTinyArch(t *testing.T) {
	a := mustArch(t, "servesim-tiny")
	// Per layer: attention 512·512·2 + 512·256·2 = 786432, FFN 3·512·1408 =
	// 2162688, norms 1024 → 2950144; ×8 = 23601152. Embedding + LM head
	// 2·32000·512 = 32768000; final norm 512.
	const want = 56_369_664
	if a.Params != want || a.ActiveParams != want {
		t.Errorf("tiny params = %g/%g, want %d", a.Params, a.ActiveParams, want)
	}
	if got := a.KVBytesPerToken(FP16); got != 2*8*4*64*2 {
		t.Errorf("tiny KV/token = %g", got)
	}
}

func TestMixtralActiveLessThanTotal(t *testing.T) {
	a := mustArch(t, "Mixtral-8x7B")
	if !a.IsMoE() || a.Experts != 8 || a.ExpertsPerToken != 2 {
		t.Fatalf("Mixtral experts = %d top-%d", a.Experts, a.ExpertsPerToken)
	}
	if !(a.ActiveParams < a.Params) {
		t.Fatalf("active %g >= total %g", a.ActiveParams, a.Params)
	}
	if !near(a.Params, 46.7e9, 0.001) || !near(a.ActiveParams, 12.9e9, 0.002) {
		t.Errorf("Mixtral params %g / active %g, want ≈46.7e9 / 12.9e9", a.Params, a.ActiveParams)
	}
	// Memory uses the total, compute the active count.
	if a.WeightBytes(BF16) != 2*a.Params || a.FLOPsPerToken() != 2*a.ActiveParams {
		t.Error("weights must use Params and FLOPs ActiveParams")
	}
}

func TestArchValidate(t *testing.T) {
	for _, name := range DefaultCatalog().ArchNames() {
		if err := mustArch(t, name).Validate(); err != nil {
			t.Errorf("built-in %s: %v", name, err)
		}
	}
	a := mustArch(t, "Llama-3.1-8B")
	a.KVHeads = 5
	a.ActiveParams = 2 * a.Params
	a.ExpertsPerToken = 2
	err := a.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"Llama-3.1-8B", "kv_heads = 5", "active_params", "experts_per_token = 2"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if err := (Arch{}).Validate(); err == nil || !strings.Contains(err.Error(), "layers = 0") {
		t.Errorf("empty arch: %v", err)
	}
}

func TestSplitsAcross(t *testing.T) {
	a := Arch{Heads: 48, KVHeads: 6}
	for tp, want := range map[int]bool{
		0: false, -2: false, 1: true, 2: true, 3: true, 6: true,
		4:  false, // divides the heads, but neither it nor the 6 KV heads divides the other
		12: true,  // a multiple of the KV heads: each rank keeps a replica
		5:  false, 96: false,
	} {
		if got := a.SplitsAcross(tp); got != want {
			t.Errorf("heads 48, kv_heads 6: SplitsAcross(%d) = %v, want %v", tp, got, want)
		}
	}
}

// EstimateParams multiplied heads by head_dim in int: a shape past int64
// there (a typo of a few digits in a catalog file) wrapped round to 0 or
// a negative count, and the attention weights vanished from params.
func TestEstimateParamsDoesNotWrap(t *testing.T) {
	a := Arch{Layers: 1, Hidden: 1, Heads: 1 << 32, KVHeads: 1 << 32, HeadDim: 1 << 32, Intermediate: 1, Vocab: 1}
	total, active := a.EstimateParams()
	attn := 4 * math.Pow(2, 64) // Q, K, V, O of hidden 1 × 2^64 each
	if !(total >= attn) || !(active >= attn) {
		t.Errorf("EstimateParams = %g, %g; want at least the attention weights, %g", total, active, attn)
	}
}

// Group-wise int4 checkpoints (AWQ, and GPTQ as stored) carry one fp16
// scale and one 4-bit zero point per 128 weights: 2.5/128 bytes on top of
// each half-byte weight. The published sizes
// (hugging-quants/Meta-Llama-3.1-{8B,70B}-Instruct-AWQ-INT4 safetensors:
// 5.73 GB and 39.77 GB) include them; half a byte alone falls 0.14 GB and
// 1.34 GB short, memory the KV layout would wrongly hand out as cache.
func TestWeightBytesInt4CountsGroupScales(t *testing.T) {
	for _, c := range []struct {
		name   string
		wantGB float64
	}{{"Llama-3.1-8B", 5.73}, {"Llama-3.1-70B", 39.77}} {
		a := mustArch(t, c.name)
		if got := a.WeightBytes(INT4) / 1e9; math.Abs(got-c.wantGB) > 0.01 {
			t.Errorf("%s int4 weights = %.3f GB, want %.2f GB (the AWQ checkpoint)", c.name, got, c.wantGB)
		}
	}
}
