package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/model"
)

// Resolved is a plan with its catalog entries looked up and the device
// memory laid out.
type Resolved struct {
	Plan     *Plan
	Arch     model.Arch
	Hardware model.Hardware
	Memory   model.MemoryConfig
	Capacity model.Capacity
	Roofline model.Roofline
	Prices   model.Prices
	// CatalogKVBlocks is the KV blocks the catalog's memory layout gives;
	// Capacity.KVBlocks is more where a measured capacity raised it, and
	// KVSource then names the measurement ("" for the catalog's).
	CatalogKVBlocks int
	KVSource        string
}

// Why ResolveMeasured refuses a plan's memory, for errors.Is: a sweep
// files each under its own skip reason.
var (
	// ErrWeightsDoNotFit: the weights, with the least activation reserve
	// the plan asks for, fill the usable memory.
	ErrWeightsDoNotFit = errors.New("weights do not fit")
	// ErrKVTooSmall: the KV cache cannot hold one max_model_len sequence,
	// or has no room at all beside weights that fit and the reserve of the
	// plan's largest step.
	ErrKVTooSmall = errors.New("KV cache too small")
)

// reasonError is err, which it reads as, filed under reason.
type reasonError struct{ err, reason error }

func (e *reasonError) Error() string   { return e.err.Error() }
func (e *reasonError) Unwrap() []error { return []error{e.err, e.reason} }

// MeasuredKV is a KV-cache capacity measured on the serving engine (a
// calibration profile's kv section). The tokens it saw held at once are a
// lower bound on the capacity (the engine may have run out of sequence
// slots first), so they replace a smaller catalog figure but never a
// larger one, and only for a plan of at least the devices they were
// measured on (fewer devices have less memory to hold them) whose usable
// memory could hold them beside its weights (not at a lower
// gpu_memory_utilization, say).
type MeasuredKV struct {
	Source    string // what measured it, for messages: "profile p.json"
	Tokens    int64  // tokens held at once
	Blocks    int64  // the same in blocks of BlockSize; 0 when not known
	BlockSize int
	Devices   int // the tensor-parallel degree it was measured at; 0 when not known
	// Reported is the capacity the engine itself reported (a profile's
	// kv_reported), nil when none. It is exact, but only for the memory it
	// was sized in: it replaces the catalog's figure, larger or smaller,
	// for a plan of the same devices at the same gpu_memory_utilization
	// whose memory could hold it. It is not scaled to another
	// utilization (the weights and activation reserve do not scale with
	// it); there, and where the engine did not say its utilization, it is
	// one more lower bound, as Tokens is.
	Reported *ReportedKV
}

// ReportedKV is a KV capacity an engine reported: Tokens, and Blocks of
// BlockSize where it counts blocks (0 where not), at
// GPUMemoryUtilization (0: not reported).
type ReportedKV struct {
	Tokens               int64
	Blocks               int64
	BlockSize            int
	GPUMemoryUtilization float64
}

// ReportedKVSuffix ends the KVSource of a capacity the engine reported.
const ReportedKVSuffix = " (reported by the engine)"

// exactBlocks is the reported capacity in blocks of bs tokens, when it
// is exact for plan p (see MeasuredKV.Reported); ok false when not.
func (kv *MeasuredKV) exactBlocks(p *Plan, bs int, gpuMemUtil float64) (int64, bool) {
	r := kv.Reported
	if r == nil || r.GPUMemoryUtilization == 0 || kv.Devices == 0 || p.Device.Count != kv.Devices ||
		math.Abs(r.GPUMemoryUtilization-gpuMemUtil) > 1e-9 {
		return 0, false
	}
	if r.Blocks > 0 && r.BlockSize == bs {
		return r.Blocks, true
	}
	return r.Tokens / int64(bs), true
}

// blocks is the measured capacity in blocks of bs tokens.
func (kv *MeasuredKV) blocks(bs int) int64 {
	n := kv.Tokens / int64(bs)
	if kv.Blocks > 0 && kv.BlockSize == bs {
		n = kv.Blocks
	}
	if r := kv.Reported; r != nil {
		n = max(n, r.Tokens/int64(bs)) // what the engine has is at least what it said
	}
	return n
}

// Resolve looks the plan's model and device up in cat and computes the KV
// capacity. A plan whose weights do not fit is an error with the numbers,
// as is one whose KV cache cannot hold what the plan asks of it (see
// ResolveMeasured).
func (p *Plan) Resolve(cat *model.Catalog) (*Resolved, error) {
	return p.ResolveMeasured(cat, nil)
}

// ResolveMeasured is Resolve with the KV capacity kv measured (nil: none),
// which replaces the catalog's where it is larger, the plan has at least
// kv's devices and their memory could hold it. The KV cache is checked
// as the simulation will use it: it must hold one max_model_len sequence,
// as vLLM requires to start; an error says which capacity it judged.
func (p *Plan) ResolveMeasured(cat *model.Catalog, kv *MeasuredKV) (*Resolved, error) {
	arch, err := cat.Arch(p.Model.Name)
	if err != nil {
		return nil, p.atLine("model.name", fmt.Errorf("model.name: %w", err))
	}
	// What the architecture refuses, said by the plan's keys rather than
	// the memory layout's (tensor_parallel, max_model_len).
	if n := p.Device.MaxModelLen; n > arch.MaxContext {
		return nil, p.atLine("device.max_model_len", fmt.Errorf("device.max_model_len: %d exceeds %s's max context of %d tokens", n, arch.Name, arch.MaxContext))
	}
	if tp := p.Device.Count; tp > 0 && !arch.SplitsAcross(tp) {
		return nil, p.atLine("device.count", fmt.Errorf("device.count: %d devices cannot split %s's %d attention heads and %d KV heads (tensor parallelism needs a divisor of the attention heads that divides or is a multiple of the KV heads, whose cache vLLM then replicates)",
			tp, arch.Name, arch.Heads, arch.KVHeads))
	}
	hw, err := cat.Hardware(p.Device.Model)
	if err != nil {
		return nil, p.atLine("device.model", fmt.Errorf("device.model: %w", err))
	}
	if p.Device.MemoryLimitGiB > 0 {
		limit := p.Device.MemoryLimitGiB * (1 << 30)
		if limit > hw.MemoryBytes {
			return nil, p.atLine("device.memory_limit_gib", fmt.Errorf("device.memory_limit_gib: %g GiB exceeds %s's %.1f GiB", p.Device.MemoryLimitGiB, hw.Name, hw.MemoryBytes/(1<<30)))
		}
		hw.MemoryBytes = limit
	}
	prec, err := model.ParsePrecision(p.Model.Precision)
	if err != nil {
		return nil, p.atLine("model.precision", fmt.Errorf("model.precision: %w", err))
	}
	mem := model.MemoryConfig{
		GPUMemoryUtilization: p.Device.GPUMemoryUtilization,
		BlockSize:            p.Device.BlockSize,
		MaxModelLen:          p.Device.MaxModelLen,
		TensorParallel:       p.Device.Count,
		WeightPrecision:      prec,
	}.WithDefaults(arch)
	if p.Batch.Strategy == "continuous" {
		mem.ProfileTokens = p.Batch.MaxNumBatchedTokens // vLLM profiles its largest step
		mem.ProfileSeqs = p.Batch.MaxNumSeqs            // and samples every sequence slot
	}
	capa, err := model.LayOutKV(arch, hw, mem)
	if err != nil && capa.UsableBytesPerDevice > 0 && capa.KVBudgetBytes <= 0 {
		// The weights and reserve fill the usable memory: a bad value of
		// the plan, said by its keys, as checkKV says a cache too small.
		raise := "device.gpu_memory_utilization or device.count"
		if p.Device.MemoryLimitGiB > 0 {
			raise = "device.gpu_memory_utilization, device.memory_limit_gib or device.count"
		}
		lower, reason := "model.precision", ErrWeightsDoNotFit
		if keys := reserveKeys(p, arch, mem, capa); keys != "" {
			// the weights fit: the reserve for the plan's step does not
			lower, reason = keys+" or model.precision", ErrKVTooSmall
		}
		err = fmt.Errorf("device.gpu_memory_utilization: %w; raise %s, or lower %s%s", err, raise, lower, catalogMemory(cat, hw, p))
		return nil, p.atLine("device.gpu_memory_utilization", &reasonError{err, reason})
	}
	if err != nil {
		// What is left is the hardware entry's (no memory size, or more
		// memory than KV blocks can count): name the key that chose it.
		return nil, p.atLine("device.model", fmt.Errorf("device.model: %s on %d× %s: %w", arch.Name, p.Device.Count, hw.Name, err))
	}
	r := &Resolved{Plan: p, Arch: arch, Hardware: hw, Memory: mem, Capacity: capa, Prices: p.Prices(), CatalogKVBlocks: capa.KVBlocks}
	if kv != nil {
		if n, exact := kv.exactBlocks(p, mem.BlockSize, mem.GPUMemoryUtilization); exact {
			if n <= memoryHolds(capa) {
				r.raiseKV(int(n), kv.Source+ReportedKVSuffix)
			}
		} else if p.Device.Count >= kv.Devices && kv.blocks(mem.BlockSize) > int64(capa.KVBlocks) && kv.blocks(mem.BlockSize) <= memoryHolds(capa) {
			r.raiseKV(int(kv.blocks(mem.BlockSize)), kv.Source)
		}
	}
	if err := r.checkKV(cat); err != nil {
		return nil, err
	}
	if r.Roofline, err = model.NewRoofline(arch, hw, mem); err != nil {
		return nil, p.atLine("model.precision", fmt.Errorf("model.precision: %s weights on %s: %w", prec, hw.Name, err))
	}
	return r, nil
}

// reserveKeys names the batch keys whose part of the activation reserve
// fills the usable memory of capa beside weights that fit with the least
// reserve (a step of model.ReserveProfileTokens, no sampler); "" when the
// weights do not fit even so, or the plan asks for no more.
func reserveKeys(p *Plan, arch model.Arch, mem model.MemoryConfig, capa model.Capacity) string {
	least := mem
	least.ProfileTokens = min(p.Batch.MaxNumBatchedTokens, model.ReserveProfileTokens)
	least.ProfileSeqs = 0
	if capa.WeightBytesPerDevice+model.DefaultActivationReserve(arch, least) >= capa.UsableBytesPerDevice {
		return ""
	}
	var keys []string
	if mem.ProfileTokens > model.ReserveProfileTokens {
		keys = append(keys, "batch.max_num_batched_tokens (vLLM reserves activation memory for its largest step)")
	}
	if mem.ProfileSeqs > 0 {
		keys = append(keys, "batch.max_num_seqs (its sampler holds fp32 logits of the vocabulary for each sequence)")
	}
	return strings.Join(keys, ", ")
}

// memoryHolds is the most KV blocks c's usable memory could hold beside
// the weights, with no reserve at all: a measurement past it was taken on
// more memory (a higher gpu_memory_utilization, smaller weights) and says
// nothing of this plan's cache. It is at most math.MaxInt32, the most the
// simulator's block index counts, as the catalog's layout is.
func memoryHolds(c model.Capacity) int64 {
	blockBytes := c.KVBytesPerTokenPerDevice * float64(c.Config.BlockSize)
	return int64(min(math.Floor((c.UsableBytesPerDevice-c.WeightBytesPerDevice)/blockBytes), math.MaxInt32))
}

// raiseKV gives the cache blocks measured by source, and what follows from
// them.
func (r *Resolved) raiseKV(blocks int, source string) {
	c := &r.Capacity
	c.KVBlocks = blocks
	c.MaxTokens = blocks * r.Memory.BlockSize
	if c.BlocksPerMaxLenSeq > 0 {
		c.MaxConcurrentAtMaxLen = blocks / c.BlocksPerMaxLenSeq
	}
	r.KVSource = source
}

// checkKV refuses a KV cache that cannot hold one max_model_len sequence
// (vLLM refuses to start). That also holds every static reservation
// (serial, fixed, token_budget: prompt + max_new_tokens up front), which
// stops at max_model_len, as the request's output does.
func (r *Resolved) checkKV(cat *model.Catalog) error {
	p, c := r.Plan, r.Capacity
	bs := int64(r.Memory.BlockSize)
	if c.KVBlocks < c.BlocksPerMaxLenSeq {
		err := fmt.Errorf("device.max_model_len: one sequence of %d tokens needs %d blocks of %d tokens, but %s; "+
			"lower device.max_model_len, or raise device.gpu_memory_utilization or device.count%s",
			p.Device.MaxModelLen, c.BlocksPerMaxLenSeq, bs, r.describeKV(), r.catalogMemory(cat))
		return p.atLine("device.max_model_len", &reasonError{err, ErrKVTooSmall})
	}
	return nil
}

// catalogMemory names, for an error of memory too small, the device
// entry's memory_bytes and the catalog line that set it ("" when built in
// or replaced by device.memory_limit_gib).
func catalogMemory(cat *model.Catalog, hw model.Hardware, p *Plan) string {
	at := cat.MemorySetAt(hw.Name)
	if at == "" || p.Device.MemoryLimitGiB > 0 {
		return ""
	}
	return fmt.Sprintf(", or check %s's memory_bytes = %.6g (set at %s)", hw.Name, hw.MemoryBytes, at)
}

// catalogMemory is the package's catalogMemory for a KV cache the
// catalog's memory layout sized ("" for one a measurement sized).
func (r *Resolved) catalogMemory(cat *model.Catalog) string {
	if r.KVSource != "" {
		return ""
	}
	return catalogMemory(cat, r.Hardware, r.Plan)
}

// describeKV says how large the KV cache is and where that comes from:
// the catalog's memory layout or the measurement that raised it.
func (r *Resolved) describeKV() string {
	p, c := r.Plan, r.Capacity
	cache := fmt.Sprintf("the KV cache of %s on %d× %s", r.Arch.Name, p.Device.Count, r.Hardware.Name)
	if r.KVSource != "" {
		than := "fewer"
		if r.CatalogKVBlocks > c.KVBlocks {
			than = "more"
		}
		return fmt.Sprintf("%s measured by %s holds %d blocks (%d tokens; the catalog's %d blocks are %s)",
			cache, r.KVSource, c.KVBlocks, c.MaxTokens, r.CatalogKVBlocks, than)
	}
	memory := fmt.Sprintf("%s's %.1f GiB", r.Hardware.Name, r.Hardware.MemoryBytes/(1<<30))
	if p.Device.MemoryLimitGiB > 0 {
		memory = fmt.Sprintf("device.memory_limit_gib %g GiB", p.Device.MemoryLimitGiB)
	}
	return fmt.Sprintf("%s holds %d blocks (%d tokens: %s × device.gpu_memory_utilization %g, less weights and activation reserve)",
		cache, c.KVBlocks, c.MaxTokens, memory, p.Device.GPUMemoryUtilization)
}
