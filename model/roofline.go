package model

import "math"

// Efficiency factors and per-step overhead of the roofline prior. They are
// deliberately round numbers: the prior only has to be the right order and
// shape; the simulator calibrates against measurements where it has them.
const (
	// ComputeEfficiency is the achievable fraction of peak dense matmul
	// throughput. Large GEMMs on H100/A100 reach 70–80% of peak in cuBLAS
	// benchmarks; serving kernels (smaller, fused, with attention) rarely
	// exceed 0.7.
	ComputeEfficiency = 0.7
	// BandwidthEfficiency is the achievable fraction of peak memory
	// bandwidth; streaming kernels measure 80–90% of the HBM datasheet
	// figure.
	BandwidthEfficiency = 0.85
	// StepOverheadSec is the fixed host-side cost of one engine step:
	// scheduling, input preparation, sampling and output processing (kernel
	// launches are mostly hidden by CUDA graphs). In vLLM this is typically
	// 1–3 ms per step; 2 ms is the middle. It matters mainly at small
	// batches: single-stream decode of Llama-3.1-8B (bf16) on one H100 is
	// 5.6 ms of weight reads at 85% bandwidth, so the prior predicts ≈7.6 ms
	// per token (≈130 tokens/s), the order commonly reported for vLLM.
	// Calibration against measurements replaces it.
	StepOverheadSec = 2e-3
)

// Roofline holds the inputs of the prior step-time model for one
// tensor-parallel group. FLOPS and BandwidthBytesPerSec are already
// multiplied by TP and the efficiency factors.
type Roofline struct {
	FLOPS                float64 // achievable ops/s of the group
	BandwidthBytesPerSec float64 // achievable bytes/s of the group
	WeightBytes          float64 // the group's weights (replicated K/V projections included), read once per step
	KVBytesPerToken      float64 // whole group, per token
	FLOPsPerToken        float64 // dense matmul ops per token
	AttnFLOPsPerQueryCtx float64 // attention ops per (query, context) token pair
	OverheadSec          float64 // fixed per-step cost

	ComputePrecision Precision // precision the FLOPS figure is for
}

// NewRoofline builds the roofline inputs of a on a TP group of h devices
// under m (zero fields of m take WithDefaults' defaults). Compute runs at
// h.ComputePrecision(m.WeightPrecision); the group's FLOPS and bandwidth
// are TP × peak × ComputeEfficiency / BandwidthEfficiency, and OverheadSec
// is StepOverheadSec. Inter-device communication is not modelled apart
// from that overhead. For MoE models every expert's weights count as read
// each step, which holds once a batch routes tokens to all experts and
// overestimates single-sequence decode.
func NewRoofline(a Arch, h Hardware, m MemoryConfig) (Roofline, error) {
	m = m.WithDefaults(a)
	if err := m.Validate(a); err != nil {
		return Roofline{}, err
	}
	cp := h.ComputePrecision(m.WeightPrecision)
	peak, err := h.PeakFLOPS(cp)
	if err != nil {
		return Roofline{}, err
	}
	tp := float64(m.TensorParallel)
	return Roofline{
		FLOPS:                peak * tp * ComputeEfficiency,
		BandwidthBytesPerSec: h.BandwidthBytesPerSec * tp * BandwidthEfficiency,
		WeightBytes:          a.WeightBytesPerDevice(m.WeightPrecision, m.TensorParallel) * tp,
		KVBytesPerToken:      a.KVBytesPerTokenPerDevice(m.KVPrecision, m.TensorParallel) * tp,
		FLOPsPerToken:        a.FLOPsPerToken(),
		AttnFLOPsPerQueryCtx: a.AttentionFLOPsPerQueryCtx(),
		OverheadSec:          StepOverheadSec,
		ComputePrecision:     cp,
	}, nil
}

// StepSeconds is the prior time of one engine step:
//
//	max(compute, memory) + OverheadSec
//	compute = (FLOPsPerToken·(prefillTokens + decodeSeqs)
//	           + AttnFLOPsPerQueryCtx·(prefillAttnTokens2 + decodeContextTokens)) / FLOPS
//	memory  = (WeightBytes + KVBytesPerToken·(decodeContextTokens + prefillTokens + prefillContextTokens)) / BandwidthBytesPerSec
//
// prefillTokens is the number of prompt tokens computed this step;
// prefillAttnTokens2 is Σ over prefill chunks of chunk tokens × context
// length after the chunk; decodeSeqs is the number of sequences decoding
// one token; decodeContextTokens is Σ over those sequences of their context
// length; prefillContextTokens is Σ over prefill chunks of the context
// before the chunk (earlier chunks, cached prefix), whose KV the chunk's
// attention reads back. A step with no tokens (prefillTokens and
// decodeSeqs both 0) takes no time. Negative arguments count as 0.
func (r Roofline) StepSeconds(prefillTokens, prefillAttnTokens2, decodeSeqs, decodeContextTokens, prefillContextTokens float64) float64 {
	prefillTokens = math.Max(prefillTokens, 0)
	prefillAttnTokens2 = math.Max(prefillAttnTokens2, 0)
	decodeSeqs = math.Max(decodeSeqs, 0)
	decodeContextTokens = math.Max(decodeContextTokens, 0)
	prefillContextTokens = math.Max(prefillContextTokens, 0)
	if prefillTokens == 0 && decodeSeqs == 0 {
		return 0
	}
	compute := (r.FLOPsPerToken*(prefillTokens+decodeSeqs) +
		r.AttnFLOPsPerQueryCtx*(prefillAttnTokens2+decodeContextTokens)) / r.FLOPS
	memory := (r.WeightBytes + r.KVBytesPerToken*(decodeContextTokens+prefillTokens+prefillContextTokens)) / r.BandwidthBytesPerSec
	return math.Max(compute, memory) + r.OverheadSec
}
