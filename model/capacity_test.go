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
