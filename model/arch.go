package model

import (
	"fmt"
	"math"
	"strings"
)

// Arch is a decoder-only transformer architecture.
type Arch struct {
	Name string
	// Params is the total parameter count (what must be held in memory);
	// ActiveParams is the count used per token (what costs compute). They
	// differ only for mixture-of-experts models such as Mixtral-8x7B.
	Params, ActiveParams float64

	Layers       int // transformer blocks
	Hidden       int // model (residual) width
	Heads        int // query heads
	KVHeads      int // key/value heads (< Heads with grouped-query attention)
	HeadDim      int // per-head width
	Intermediate int // FFN width (per expert for MoE)
	Vocab        int
	MaxContext   int // max_position_embeddings, tokens

	Experts, ExpertsPerToken int // 0 for dense models

	// TiedEmbeddings: the LM head shares the input embedding's matrix
	// (tie_word_embeddings; small Qwen and Gemma models). The catalog's
	// entries keep them apart.
	TiedEmbeddings bool
}

// KVBytesPerToken is the KV-cache size of one token for the whole model:
// 2 (K and V) × layers × kv_heads × head_dim × bytes.
func (a Arch) KVBytesPerToken(kv Precision) float64 {
	return 2 * float64(a.Layers) * float64(a.KVHeads) * float64(a.HeadDim) * kv.Bytes()
}

// KVBytesPerTokenPerDevice is the KV-cache size of one token on each device
// of a tensor-parallel group of tp devices. KV heads are split across ranks;
// when tp exceeds KVHeads each rank keeps one (replicated) head, as vLLM does,
// so the group total exceeds KVBytesPerToken.
func (a Arch) KVBytesPerTokenPerDevice(kv Precision, tp int) float64 {
	if tp < 1 {
		tp = 1
	}
	heads := (a.KVHeads + tp - 1) / tp // ceil; 1 when replicated
	return 2 * float64(a.Layers) * float64(heads) * float64(a.HeadDim) * kv.Bytes()
}

// SplitsAcross reports whether tp >= 1 devices can split the model by
// tensor parallelism: tp divides the attention heads, and tp and the KV
// heads divide one another (KV heads are split, or replicated past KVHeads).
func (a Arch) SplitsAcross(tp int) bool {
	return tp >= 1 && a.Heads%tp == 0 && (a.KVHeads%tp == 0 || tp%a.KVHeads == 0)
}

// EmbeddingParams is the input embedding and LM head's share of Params:
// Vocab × Hidden, twice unless they are tied.
func (a Arch) EmbeddingParams() float64 {
	n := float64(a.Vocab) * float64(a.Hidden)
	if !a.TiedEmbeddings {
		n *= 2
	}
	return min(n, a.Params)
}

// WeightBytes is the size of all weights at precision p. Quantized
// checkpoints (fp8, int8, int4, as vLLM loads them) keep the embedding and
// LM head at 16 bits, a large share of a small model: Llama-3.1-8B in int4
// is 5.73 GB (as its AWQ checkpoints are), not the 4.0 GB of every
// parameter at half a byte. int4 weights also carry their group scales
// (see quantizedWeightBytes).
func (a Arch) WeightBytes(p Precision) float64 {
	emb := a.EmbeddingParams()
	return (a.Params-emb)*quantizedWeightBytes(p) + emb*max(p.Bytes(), BF16.Bytes())
}

// int4GroupSize is the weights per quantization group of int4 checkpoints
// (AWQ's and GPTQ's default, q_group_size / group_size = 128).
const int4GroupSize = 128

// quantizedWeightBytes is the storage of one weight at p with its share of
// the quantization metadata. Group-wise int4 adds one fp16 scale and one
// 4-bit zero point per group, 2.5/128 bytes (4% of the weight itself);
// fp8 and int8 scales are per tensor or per output channel, negligible.
func quantizedWeightBytes(p Precision) float64 {
	if p == INT4 {
		return p.Bytes() + (FP16.Bytes()+INT4.Bytes())/int4GroupSize
	}
	return p.Bytes()
}

// WeightBytesPerDevice is the size of the weights each device of a
// tensor-parallel group of tp devices holds at precision p. Weights split
// evenly across ranks (the embedding and LM head by vocabulary rows, as
// vLLM's VocabParallelEmbedding splits them), except that when tp exceeds
// KVHeads each rank keeps the whole K and V projections of its replicated
// KV head (see KVBytesPerTokenPerDevice) rather than a 1/tp share.
func (a Arch) WeightBytesPerDevice(p Precision, tp int) float64 {
	if tp < 1 {
		tp = 1
	}
	heads := (a.KVHeads + tp - 1) / tp // KV heads per rank, as in KVBytesPerTokenPerDevice
	// The group holds heads × tp KV heads' projections, WeightBytes only
	// KVHeads of them: 0 extra unless heads are replicated.
	replicas := float64(heads*tp - a.KVHeads)
	headProj := 2 * float64(a.Layers) * float64(a.Hidden) * float64(a.HeadDim) * quantizedWeightBytes(p) // K and V of one head
	return (a.WeightBytes(p) + replicas*headProj) / float64(tp)
}

// FLOPsPerToken is the dense matmul work per token, 2 × ActiveParams (one
// multiply and one add per active weight). By this common convention the
// input-embedding lookup is counted too, a small overestimate.
func (a Arch) FLOPsPerToken() float64 { return 2 * a.ActiveParams }

// AttentionFLOPsPerQueryCtx is the attention work for one query token
// against one context token across all layers: 4 × layers × heads × head_dim
// (2 for QKᵀ and 2 for PV).
func (a Arch) AttentionFLOPsPerQueryCtx() float64 {
	return 4 * float64(a.Layers) * float64(a.Heads) * float64(a.HeadDim)
}

// AttentionFLOPs is the attention work of queryTokens queries, each against
// contextTokens keys: AttentionFLOPsPerQueryCtx × queryTokens × contextTokens.
// Causal masking is not applied: for a chunk of prefill, passing the context
// length after the chunk is an upper bound (about 2× for a whole prompt),
// the convention Roofline.StepSeconds uses.
func (a Arch) AttentionFLOPs(queryTokens, contextTokens float64) float64 {
	return a.AttentionFLOPsPerQueryCtx() * queryTokens * contextTokens
}

// IsMoE reports whether a is a mixture-of-experts model.
func (a Arch) IsMoE() bool { return a.Experts > 0 }

// EstimateParams computes total and active parameter counts from the shape,
// assuming a Llama-style block: separate Q, K, V, O projections without bias,
// a gated (SwiGLU) FFN of three matrices per expert, a router of Hidden ×
// Experts for MoE, two RMSNorm vectors per layer plus a final one, and an
// input embedding and LM head (one matrix when tied). It is exact for
// Llama, Mistral and Mixtral; Qwen2.5 adds Q/K/V biases (about 0.002% more).
func (a Arch) EstimateParams() (total, active float64) {
	h, headDim := float64(a.Hidden), float64(a.HeadDim) // float: int products wrap on extreme shapes
	attn := h*float64(a.Heads)*headDim*2 + h*float64(a.KVHeads)*headDim*2
	ffn := 3 * h * float64(a.Intermediate)
	norms := 2 * h
	experts, perToken, router := 1.0, 1.0, 0.0
	if a.Experts > 0 {
		experts, perToken, router = float64(a.Experts), float64(a.ExpertsPerToken), h*float64(a.Experts)
	}
	embed := float64(a.Vocab) * h
	if !a.TiedEmbeddings {
		embed *= 2
	}
	layers := float64(a.Layers)
	total = layers*(attn+experts*ffn+router+norms) + embed + h
	active = layers*(attn+perToken*ffn+router+norms) + embed + h
	return total, active
}

// paramsBand is how far a stated parameter count may stray from
// EstimateParams of the shape, either way. The estimate is exact for
// Llama-style blocks and close for their relatives; a factor of 2 leaves
// room for other layouts while catching a count in the wrong unit or with
// a slipped digit, which would size the weights and the roofline wrongly.
const paramsBand = 2

// paramsOff is a parameter count outside paramsBand of its estimate.
type paramsOff struct {
	field         string // "params" or "active_params"
	got, estimate float64
}

// paramsOffShape lists params and active_params where they stray past
// paramsBand from what EstimateParams gives for the shape.
func (a Arch) paramsOffShape() []paramsOff {
	total, active := a.EstimateParams()
	var off []paramsOff
	for _, f := range []paramsOff{{"params", a.Params, total}, {"active_params", a.ActiveParams, active}} {
		if !(f.got >= f.estimate/paramsBand && f.got <= f.estimate*paramsBand) {
			off = append(off, f)
		}
	}
	return off
}

// Validate checks that the architecture is complete and consistent.
func (a Arch) Validate() error {
	var p problems
	bad := p.add
	if a.Name == "" {
		bad("name is empty")
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"layers", a.Layers}, {"hidden", a.Hidden}, {"heads", a.Heads}, {"kv_heads", a.KVHeads},
		{"head_dim", a.HeadDim}, {"intermediate", a.Intermediate}, {"vocab", a.Vocab}, {"max_context", a.MaxContext},
	} {
		if f.v <= 0 {
			bad("%s = %d, must be > 0", f.name, f.v)
		}
	}
	if !(a.Params > 0) || math.IsInf(a.Params, 0) {
		bad("params = %g, must be finite and > 0", a.Params)
	}
	switch {
	case !(a.ActiveParams > 0) || a.ActiveParams > a.Params:
		bad("active_params = %g, must be in (0, params = %g]", a.ActiveParams, a.Params)
	case !a.IsMoE() && a.ActiveParams != a.Params:
		// Every weight of a dense model is used per token: a smaller
		// active count would charge compute for part of what is read.
		bad("active_params = %g on a dense model (experts = 0), must equal params = %g", a.ActiveParams, a.Params)
	}
	if a.KVHeads > 0 && a.Heads > 0 && a.Heads%a.KVHeads != 0 {
		bad("heads = %d is not a multiple of kv_heads = %d", a.Heads, a.KVHeads)
	}
	switch {
	case a.Experts < 0 || a.ExpertsPerToken < 0:
		bad("experts = %d, experts_per_token = %d, must be >= 0", a.Experts, a.ExpertsPerToken)
	case a.Experts == 0 && a.ExpertsPerToken != 0:
		bad("experts_per_token = %d on a dense model (experts = 0)", a.ExpertsPerToken)
	case a.Experts > 0 && (a.ExpertsPerToken < 1 || a.ExpertsPerToken > a.Experts):
		bad("experts_per_token = %d, must be in [1, experts = %d]", a.ExpertsPerToken, a.Experts)
	}
	return p.err("architecture", a.Name)
}

// problems collects validation failures into one single-line error.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err(kind, name string) error {
	if len(p) == 0 {
		return nil
	}
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Errorf("model: %s %s: %s", kind, name, joinProblems(p))
}

func joinProblems(p problems) string { return strings.Join(p, "; ") }
