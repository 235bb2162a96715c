package model

import (
	"fmt"
	"math"
)

// Defaults applied by MemoryConfig.WithDefaults to zero fields.
const (
	DefaultGPUMemoryUtilization = 0.9 // vLLM's default
	DefaultBlockSize            = 16  // vLLM's default on CUDA
)

// Default activation reserve (see DefaultActivationReserve).
const (
	// ReserveFixedBytes covers memory outside the weights and KV cache that
	// does not scale with the model: CUDA context, cuBLAS/NCCL workspaces,
	// CUDA-graph pools. vLLM reports about 0.4–1 GiB of such "non-torch"
	// memory plus a few hundred MiB of CUDA graphs; 1 GiB is a round
	// middle. It is the same at any tensor parallelism: NCCL's buffers on
	// a TP > 1 group are left out, about 1.8 GiB more per device at TP 2
	// in a vLLM 0.6.5 log (3.58 GiB non-torch, 1.79 at TP 1), where the
	// layout then holds 6% more KV than vLLM did; a measured capacity
	// (calibrate) replaces it.
	ReserveFixedBytes = 1 << 30
	// ReserveProfileTokens is the batch size of the activation-peak
	// estimate: vLLM's profiling forward pass runs max_num_batched_tokens
	// tokens, 8192 by default for online serving with chunked prefill.
	ReserveProfileTokens = 8192
	// LogitBytes is one logit as vLLM's sampler holds it: fp32, whatever
	// the model's precision.
	LogitBytes = 4
)

// MemoryConfig is how a serving engine lays out device memory.
// Zero fields take defaults; see WithDefaults.
type MemoryConfig struct {
	GPUMemoryUtilization float64 // fraction of device memory the engine may use, (0, 1]
	BlockSize            int     // tokens per KV block, e.g. 16
	MaxModelLen          int     // longest sequence (prompt + output), tokens
	TensorParallel       int     // >= 1: weights and KV split across this many devices
	// ActivationReserveBytes is the per-device memory kept for activations
	// and runtime overhead; 0 means DefaultActivationReserve.
	ActivationReserveBytes float64
	// ProfileTokens is the tokens of vLLM's profiling pass, its
	// max_num_batched_tokens; 0 means ReserveProfileTokens.
	ProfileTokens int
	// ProfileSeqs is the sequences whose logits the profiling pass
	// samples, vLLM's max_num_seqs; 0 leaves the sampler out (an engine
	// with no sequence limit to size it by, as the static policies have).
	ProfileSeqs                  int
	WeightPrecision, KVPrecision Precision
}

// WithDefaults returns m with zero fields filled in: utilization 0.9, block
// size 16, MaxModelLen = a.MaxContext, TensorParallel 1, bf16 weights, and
// KV at the weight precision when that is 16- or 32-bit, else bf16 (vLLM's
// kv_cache_dtype "auto" follows the activation dtype, not a quantized
// weight dtype). ActivationReserveBytes stays 0 here and is resolved by
// ComputeCapacity.
func (m MemoryConfig) WithDefaults(a Arch) MemoryConfig {
	if m.GPUMemoryUtilization == 0 {
		m.GPUMemoryUtilization = DefaultGPUMemoryUtilization
	}
	if m.BlockSize == 0 {
		m.BlockSize = DefaultBlockSize
	}
	if m.MaxModelLen == 0 {
		m.MaxModelLen = a.MaxContext
	}
	if m.TensorParallel == 0 {
		m.TensorParallel = 1
	}
	if m.WeightPrecision == "" {
		m.WeightPrecision = BF16
	}
	if m.KVPrecision == "" {
		switch m.WeightPrecision {
		case FP32, FP16, BF16:
			m.KVPrecision = m.WeightPrecision
		default:
			m.KVPrecision = BF16
		}
	}
	return m
}

// Validate checks m (after defaults) against the architecture.
func (m MemoryConfig) Validate(a Arch) error {
	var p problems
	if !(m.GPUMemoryUtilization > 0 && m.GPUMemoryUtilization <= 1) {
		p.add("gpu_memory_utilization = %g, must be in (0, 1]", m.GPUMemoryUtilization)
	}
	if m.BlockSize < 1 {
		p.add("block_size = %d, must be >= 1", m.BlockSize)
	}
	if m.MaxModelLen < 1 || m.MaxModelLen > a.MaxContext {
		p.add("max_model_len = %d, must be in [1, %d] (the architecture's max context)", m.MaxModelLen, a.MaxContext)
	}
	tp := m.TensorParallel
	switch {
	case tp < 1:
		p.add("tensor_parallel = %d, must be >= 1", tp)
	case !a.SplitsAcross(tp):
		p.add("tensor_parallel = %d cannot split heads = %d and kv_heads = %d (it must divide the heads, and divide or be a multiple of the KV heads)", tp, a.Heads, a.KVHeads)
	}
	if !(m.ActivationReserveBytes >= 0) || math.IsInf(m.ActivationReserveBytes, 0) {
		p.add("activation_reserve_bytes = %g, must be >= 0", m.ActivationReserveBytes)
	}
	if !m.WeightPrecision.Valid() {
		p.add("weight precision %q unknown (valid: %s)", m.WeightPrecision, validPrecisions())
	}
	if !m.KVPrecision.Valid() || m.KVPrecision == INT4 {
		p.add("kv precision %q unsupported (valid: fp32, fp16, bf16, fp8, int8)", m.KVPrecision)
	}
	return p.err("memory config for", a.Name)
}

// DefaultActivationReserve estimates the per-device memory a serving engine
// keeps outside weights and KV cache:
//
//	ReserveFixedBytes + ProfileTokens × (4·Hidden + k·3·Intermediate/TP) × activation bytes
//	  + ProfileSeqs × Vocab × LogitBytes
//
// The second term is the activation peak of vLLM's profiling pass: a few
// live hidden-state buffers (residual, normed input, attention output;
// four in all) and the gate, up and product tensors of the FFN, which are
// split across TP ranks. k is 1, or ExpertsPerToken for a mixture-of-experts
// model: vLLM's fused-MoE kernels hold the gate/up and activated outputs of
// each of a token's top-k experts at once.
// Activations are 16-bit (4 bytes for fp32 weights). The last term is the
// sampler's logits, one row of the whole vocabulary for each sequence,
// which vLLM samples in fp32 on every TP rank (the LM head's shards are
// gathered). For Llama-3.1-8B at TP=1 without the sampler this gives
// 1 GiB + 0.97 GB ≈ 2.05 GB, and 256 sequences add 0.13 GB, in line with
// what vLLM logs on an H100; for Mixtral-8x7B (top 2) 1 GiB + 1.68 GB ≈
// 2.75 GB without the sampler.
func DefaultActivationReserve(a Arch, m MemoryConfig) float64 {
	tp := m.TensorParallel
	if tp < 1 {
		tp = 1
	}
	act := 2.0
	if m.WeightPrecision == FP32 {
		act = 4
	}
	tokens := float64(ReserveProfileTokens)
	if m.ProfileTokens > 0 {
		tokens = float64(m.ProfileTokens)
	}
	ffn := 3 * float64(a.Intermediate) / float64(tp)
	if a.IsMoE() {
		ffn *= float64(a.ExpertsPerToken)
	}
	perToken := 4*float64(a.Hidden) + ffn
	logits := float64(max(m.ProfileSeqs, 0)) * float64(a.Vocab) * LogitBytes
	return ReserveFixedBytes + tokens*perToken*act + logits
}

// Capacity is the memory layout of one tensor-parallel group.
type Capacity struct {
	WeightBytesPerDevice float64
	// KVBytesPerToken is one token's KV cache summed over the TP group
	// (KVBytesPerTokenPerDevice × TP; equal to Arch.KVBytesPerToken unless
	// TP exceeds the KV heads and heads are replicated).
	KVBytesPerToken          float64
	KVBytesPerTokenPerDevice float64
	// KVBudgetBytes is the memory left for KV cache on each device:
	// MemoryBytes × utilization − weights − reserve. The group holds
	// KVBudgetBytes × TP.
	KVBudgetBytes float64
	// KVBlocks counts blocks once per group: each device holds its shard of
	// every block, so the count is KVBudgetBytes / (block bytes per device).
	KVBlocks              int
	MaxTokens             int // KVBlocks × BlockSize
	MaxConcurrentAtMaxLen int // sequences of MaxModelLen tokens that fit at once

	// The resolved configuration behind the numbers.
	UsableBytesPerDevice   float64 // MemoryBytes × GPUMemoryUtilization
	ActivationReserveBytes float64 // per device
	BlocksPerMaxLenSeq     int     // ceil(MaxModelLen / BlockSize)
	Config                 MemoryConfig
}

// ComputeCapacity lays out memory for a on h under m (zero fields of m take
// the defaults of WithDefaults). It errors, with the numbers, when the
// weights and reserve do not fit, or when the KV cache cannot hold even one
// sequence of MaxModelLen tokens (vLLM refuses to start then too).
func ComputeCapacity(a Arch, h Hardware, m MemoryConfig) (Capacity, error) {
	c, err := LayOutKV(a, h, m)
	if err != nil || c.KVBlocks >= c.BlocksPerMaxLenSeq {
		return c, err
	}
	blockBytes := c.KVBytesPerTokenPerDevice * float64(c.Config.BlockSize)
	return c, fmt.Errorf("model: %s on %s (TP=%d): KV cache of %s per device holds %d blocks of %d tokens (%d tokens), fewer than the %d blocks one max_model_len=%d sequence needs (%s per device); lower max_model_len, raise gpu_memory_utilization or tensor_parallel",
		a.Name, h.Name, c.Config.TensorParallel, gb(c.KVBudgetBytes), c.KVBlocks, c.Config.BlockSize, c.MaxTokens,
		c.BlocksPerMaxLenSeq, c.Config.MaxModelLen, gb(float64(c.BlocksPerMaxLenSeq)*blockBytes))
}

// LayOutKV is ComputeCapacity without the check that one MaxModelLen
// sequence fits, for a caller that may replace the KV blocks with a
// measured count and checks the cache it will use (plan.ResolveMeasured).
func LayOutKV(a Arch, h Hardware, m MemoryConfig) (Capacity, error) {
	m = m.WithDefaults(a)
	if err := m.Validate(a); err != nil {
		return Capacity{}, err
	}
	if !(h.MemoryBytes > 0) {
		return Capacity{}, fmt.Errorf("model: hardware %s has no memory size", h.Name)
	}
	tp := float64(m.TensorParallel)
	reserve := m.ActivationReserveBytes
	if reserve == 0 {
		reserve = DefaultActivationReserve(a, m)
	}
	m.ActivationReserveBytes = reserve

	c := Capacity{
		WeightBytesPerDevice:     a.WeightBytesPerDevice(m.WeightPrecision, m.TensorParallel),
		KVBytesPerTokenPerDevice: a.KVBytesPerTokenPerDevice(m.KVPrecision, m.TensorParallel),
		UsableBytesPerDevice:     h.MemoryBytes * m.GPUMemoryUtilization,
		ActivationReserveBytes:   reserve,
		BlocksPerMaxLenSeq:       (m.MaxModelLen-1)/m.BlockSize + 1, // ceil, without overflow near MaxInt
		Config:                   m,
	}
	c.KVBytesPerToken = c.KVBytesPerTokenPerDevice * tp
	c.KVBudgetBytes = c.UsableBytesPerDevice - c.WeightBytesPerDevice - reserve
	if c.KVBudgetBytes <= 0 {
		return c, fmt.Errorf("model: %s does not fit on %s (TP=%d): weights %s (%s) + activation reserve %s = %s per device, but only %s usable (%.2f × %s)",
			a.Name, h.Name, m.TensorParallel, gb(c.WeightBytesPerDevice), m.WeightPrecision, gb(reserve),
			gb(c.WeightBytesPerDevice+reserve), gb(c.UsableBytesPerDevice), m.GPUMemoryUtilization, gb(h.MemoryBytes))
	}
	blockBytes := c.KVBytesPerTokenPerDevice * float64(m.BlockSize)
	blocks := math.Floor(c.KVBudgetBytes / blockBytes)
	// A block count past int32 (the simulator's block index), or a token
	// count past int64, is no device's: converting it would wrap round.
	if blocks > math.MaxInt32 || blocks*float64(m.BlockSize) >= math.MaxInt64 {
		return c, fmt.Errorf("model: %s on %s (TP=%d): KV cache of %s per device holds %.3g blocks of %d tokens, more than can be counted (at most %d blocks, %d tokens); check the hardware's memory_bytes (%g)",
			a.Name, h.Name, m.TensorParallel, gb(c.KVBudgetBytes), blocks, m.BlockSize, math.MaxInt32, math.MaxInt64, h.MemoryBytes)
	}
	c.KVBlocks = int(blocks)
	c.MaxTokens = c.KVBlocks * m.BlockSize
	c.MaxConcurrentAtMaxLen = c.KVBlocks / c.BlocksPerMaxLenSeq
	return c, nil
}

// gb formats bytes as decimal gigabytes; past a petabyte in exponent form,
// which a mistyped memory figure reaches, rather than hundreds of digits.
func gb(b float64) string {
	if math.Abs(b) >= 1e15 {
		return fmt.Sprintf("%.3g GB", b/1e9)
	}
	return fmt.Sprintf("%.2f GB", b/1e9)
}
