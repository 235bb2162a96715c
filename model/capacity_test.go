package model

import (
	"strings"
	"testing"
)

func TestCapacityLlama8BOnH100(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-8B"), mustHW(t, "H100-SXM-80G")
	c, err := ComputeCapacity(a, h, MemoryConfig{
		GPUMemoryUtilization: 0.9, BlockSize: 16, MaxModelLen: 131072, TensorParallel: 1,
		WeightPrecision: BF16, KVPrecision: BF16,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Hand computation:
	//   memory  81559 MiB = 85,520,809,984 B; × 0.9 = 76,968,728,985.6
	//   weights 8,030,261,248 × 2 = 16,060,522,496
	//   reserve 2^30 + 8192 × (4·4096 + 3·14336) × 2 = 1,073,741,824 + 973,078,528 = 2,046,820,352
	//   KV budget = 58,861,386,137.6; block = 131072 × 16 = 2,097,152 B
	//   blocks = floor(28067.3) = 28067 → 449,072 tokens; 131072-token
	//   sequences need 8192 blocks each → 3 fit.
	if c.WeightBytesPerDevice != 16_060_522_496 {
		t.Errorf("weights = %g", c.WeightBytesPerDevice)
	}
	if c.ActivationReserveBytes != 2_046_820_352 {
		t.Errorf("reserve = %g", c.ActivationReserveBytes)
	}
	if !near(c.KVBudgetBytes, 58_861_386_137.6, 1e-12) {
		t.Errorf("KV budget = %f", c.KVBudgetBytes)
	}
	if c.KVBytesPerToken != 131072 || c.KVBytesPerTokenPerDevice != 131072 {
		t.Errorf("KV/token = %g / %g", c.KVBytesPerToken, c.KVBytesPerTokenPerDevice)
	}
	if c.KVBlocks != 28067 || c.MaxTokens != 449072 || c.BlocksPerMaxLenSeq != 8192 || c.MaxConcurrentAtMaxLen != 3 {
		t.Errorf("blocks %d, tokens %d, per seq %d, concurrent %d", c.KVBlocks, c.MaxTokens, c.BlocksPerMaxLenSeq, c.MaxConcurrentAtMaxLen)
	}
}

func TestCapacityExplicitReserveAndDefaults(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-8B"), mustHW(t, "H100-SXM-80G")
	// Zero fields: util 0.9, block 16, MaxModelLen 131072, TP 1, bf16/bf16.
	c, err := ComputeCapacity(a, h, MemoryConfig{ActivationReserveBytes: 4e9})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Config
	if m.GPUMemoryUtilization != 0.9 || m.BlockSize != 16 || m.MaxModelLen != 131072 || m.TensorParallel != 1 || m.WeightPrecision != BF16 || m.KVPrecision != BF16 {
		t.Errorf("defaults = %+v", m)
	}
	// (76,968,728,985.6 − 16,060,522,496 − 4e9) / 2,097,152 = 27135.9
	if c.KVBlocks != 27135 {
		t.Errorf("blocks = %d, want 27135", c.KVBlocks)
	}
	// fp8 KV halves the block size: 54271.9 → 54271.
	c, err = ComputeCapacity(a, h, MemoryConfig{ActivationReserveBytes: 4e9, KVPrecision: FP8})
	if err != nil || c.KVBlocks != 54271 {
		t.Errorf("fp8 KV: blocks %d, %v", c.KVBlocks, err)
	}
	// fp8 weights default to bf16 KV.
	if m := (MemoryConfig{WeightPrecision: FP8}).WithDefaults(a); m.KVPrecision != BF16 {
		t.Errorf("fp8 weights → KV %s", m.KVPrecision)
	}
}

func TestCapacityTensorParallel(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-70B"), mustHW(t, "H100-SXM-80G")
	c, err := ComputeCapacity(a, h, MemoryConfig{TensorParallel: 4, MaxModelLen: 8192})
	if err != nil {
		t.Fatal(err)
	}
	// weights 141,107,412,992 / 4 = 35,276,853,248 per device;
	// reserve 2^30 + 8192·(4·8192 + 3·28672/4)·2 = 1,073,741,824 + 889,192,448 = 1,962,934,272;
	// budget 76,968,728,985.6 − 35,276,853,248 − 1,962,934,272 = 39,728,941,465.6;
	// per-device block 327680/4 × 16 = 1,310,720 → 30310.8 → 30310 blocks;
	// an 8192-token sequence needs 512 blocks → 59 fit.
	if c.WeightBytesPerDevice != 35_276_853_248 || c.ActivationReserveBytes != 1_962_934_272 {
		t.Errorf("weights %g, reserve %g", c.WeightBytesPerDevice, c.ActivationReserveBytes)
	}
	if c.KVBytesPerToken != 327680 || c.KVBlocks != 30310 || c.MaxConcurrentAtMaxLen != 59 {
		t.Errorf("KV/token %g, blocks %d, concurrent %d", c.KVBytesPerToken, c.KVBlocks, c.MaxConcurrentAtMaxLen)
	}
}

func TestCapacityOOM(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-70B"), mustHW(t, "H100-SXM-80G")
	_, err := ComputeCapacity(a, h, MemoryConfig{})
	if err == nil {
		t.Fatal("70B bf16 on one H100: no error")
	}
	// weights 141.11 GB + reserve 3.02 GB = 144.13 GB > 0.9 × 85.52 = 76.97 GB.
	for _, s := range []string{"Llama-3.1-70B", "H100-SXM-80G", "141.11 GB", "3.02 GB", "144.13 GB", "76.97 GB", "0.90", "85.52 GB"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestCapacityTooFewBlocks(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-8B"), mustHW(t, "L40S")
	// L40S: 46068 MiB = 48.31 GB. At 0.9 utilization: 43.48 − 16.06 (weights)
	// − 2.05 (reserve) = 25.37 GB of KV = 12096 blocks, enough for one
	// 131072-token sequence (8192 blocks). At 0.5: 24.15 − 18.11 = 6.05 GB
	// = 2882 blocks (46112 tokens) < 8192.
	_, err := ComputeCapacity(a, h, MemoryConfig{GPUMemoryUtilization: 0.5})
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"2882 blocks", "8192 blocks", "max_model_len=131072", "46112 tokens"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	c, err := ComputeCapacity(a, h, MemoryConfig{GPUMemoryUtilization: 0.5, MaxModelLen: 8192})
	if err != nil || c.KVBlocks != 2882 || c.MaxConcurrentAtMaxLen != 5 {
		t.Errorf("8k context: %+v, %v", c, err)
	}
}

func TestMemoryConfigValidate(t *testing.T) {
	a := mustArch(t, "Llama-3.1-8B")
	m := MemoryConfig{GPUMemoryUtilization: 1.5, BlockSize: -1, MaxModelLen: 200000, TensorParallel: 3, WeightPrecision: "fp6", KVPrecision: INT4}
	err := m.Validate(a)
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"gpu_memory_utilization = 1.5", "block_size = -1", "max_model_len = 200000", "tensor_parallel = 3", `"fp6"`, `kv precision "int4"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if _, err := ComputeCapacity(a, mustHW(t, "H100-SXM-80G"), MemoryConfig{TensorParallel: 3}); err == nil {
		t.Error("ComputeCapacity with TP=3: no error")
	}
}

// Past the KV heads (TP > KVHeads) each rank keeps one replicated KV head,
// so it holds that head's whole K and V projections, not 1/TP of them.
func TestCapacityWeightsReplicateKVProjections(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-70B"), mustHW(t, "H100-SXM-80G") // 8 KV heads
	// Hand computation (bf16):
	//   all weights 70,553,706,496 × 2 = 141,107,412,992 B
	//   K and V projections of one KV head: 80 layers × 8192 × 128 × 2 × 2 B = 335,544,320 B
	//   TP 8: one head per rank, no replication: 141,107,412,992 / 8 = 17,638,426,624
	//   TP 16: (141,107,412,992 − 8 × 335,544,320) / 16 + 335,544,320
	//        = 8,651,441,152 + 335,544,320 = 8,986,985,472, which is
	//        141,107,412,992 / 16 + half a head's projections (167,772,160).
	headProj := 80.0 * 8192 * 128 * 2 * 2
	for _, tc := range []struct {
		tp   int
		want float64
	}{
		{8, a.WeightBytes(BF16) / 8},
		{16, a.WeightBytes(BF16)/16 + headProj/2},
	} {
		c, err := ComputeCapacity(a, h, MemoryConfig{TensorParallel: tc.tp, MaxModelLen: 8192})
		if err != nil {
			t.Fatal(err)
		}
		if c.WeightBytesPerDevice != tc.want {
			t.Errorf("TP %d: weights per device %.0f, want %.0f", tc.tp, c.WeightBytesPerDevice, tc.want)
		}
	}
	if got := a.WeightBytesPerDevice(BF16, 16); got != 8_986_985_472 {
		t.Errorf("TP 16: WeightBytesPerDevice = %.0f, want 8,986,985,472", got)
	}

	// Llama-3.1-8B (32 heads, 8 KV heads) splits across 16 ranks too: two
	// query heads and one replicated KV head each.
	// One KV head's projections: 32 layers × 4096 × 128 × 2 × 2 B = 67,108,864;
	// (16,060,522,496 − 8 × 67,108,864) / 16 + 67,108,864
	//   = 970,228,224 + 67,108,864 = 1,037,337,088.
	b := mustArch(t, "Llama-3.1-8B")
	c, err := ComputeCapacity(b, h, MemoryConfig{TensorParallel: 16})
	if err != nil {
		t.Fatal(err)
	}
	if c.WeightBytesPerDevice != 1_037_337_088 {
		t.Errorf("8B at TP 16: weights per device %.0f, want 1,037,337,088", c.WeightBytesPerDevice)
	}
}

// vLLM's fused-MoE kernels materialise the gate/up and activated FFN
// tensors for each of a token's top-k experts, so a mixture-of-experts
// model reserves more than a dense model of the same shape.
func TestActivationReserveScalesWithExpertsPerToken(t *testing.T) {
	moe := mustArch(t, "Mixtral-8x7B") // top 2 of 8 experts
	dense := moe
	dense.Experts, dense.ExpertsPerToken = 0, 0
	for _, tp := range []int{1, 2, 8} {
		m := MemoryConfig{TensorParallel: tp}
		d, e := DefaultActivationReserve(dense, m), DefaultActivationReserve(moe, m)
		// Only the FFN term grows: by (topk − 1) × 3 × Intermediate/TP per token.
		extra := float64(ReserveProfileTokens) * (2 - 1) * 3 * 14336 / float64(tp) * 2
		if e != d+extra {
			t.Errorf("TP %d: MoE reserve %.0f, dense %.0f: want the dense one + %.0f", tp, e, d, extra)
		}
	}
	// TP 1: 2^30 + 8192 × (4·4096 + 2·3·14336) × 2 = 1,073,741,824 + 1,677,721,600.
	if got := DefaultActivationReserve(moe, MemoryConfig{}); got != 2_751_463_424 {
		t.Errorf("Mixtral TP 1 reserve = %.0f, want 2,751,463,424", got)
	}
}
