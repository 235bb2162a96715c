package plan

import (
	"fmt"

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
}

// Resolve looks the plan's model and device up in cat and computes the KV
// capacity. A plan whose weights do not fit is an error with the numbers.
func (p *Plan) Resolve(cat *model.Catalog) (*Resolved, error) {
	arch, err := cat.Arch(p.Model.Name)
	if err != nil {
		return nil, fmt.Errorf("model.name: %w", err)
	}
	// What the architecture refuses, said by the plan's keys rather than
	// the memory layout's (tensor_parallel, max_model_len).
	if n := p.Device.MaxModelLen; n > arch.MaxContext {
		return nil, fmt.Errorf("device.max_model_len: %d exceeds %s's max context of %d tokens", n, arch.Name, arch.MaxContext)
	}
	if tp := p.Device.Count; tp > 0 && !arch.SplitsAcross(tp) {
		return nil, fmt.Errorf("device.count: %d devices cannot split %s's %d attention heads and %d KV heads (tensor parallel needs a divisor of the heads)",
			tp, arch.Name, arch.Heads, arch.KVHeads)
	}
	hw, err := cat.Hardware(p.Device.Model)
	if err != nil {
		return nil, fmt.Errorf("device.model: %w", err)
	}
	if p.Device.MemoryLimitGiB > 0 {
		limit := p.Device.MemoryLimitGiB * (1 << 30)
		if limit > hw.MemoryBytes {
			return nil, fmt.Errorf("device.memory_limit_gib: %g GiB exceeds %s's %.1f GiB", p.Device.MemoryLimitGiB, hw.Name, hw.MemoryBytes/(1<<30))
		}
		hw.MemoryBytes = limit
	}
	prec, err := model.ParsePrecision(p.Model.Precision)
	if err != nil {
		return nil, fmt.Errorf("model.precision: %w", err)
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
	}
	capa, err := model.ComputeCapacity(arch, hw, mem)
	if err != nil {
		return nil, fmt.Errorf("%s on %d× %s: %w", arch.Name, p.Device.Count, hw.Name, err)
	}
	if err := p.checkStaticReservation(arch, hw, capa); err != nil {
		return nil, err
	}
	roof, err := model.NewRoofline(arch, hw, mem)
	if err != nil {
		return nil, err
	}
	return &Resolved{Plan: p, Arch: arch, Hardware: hw, Memory: mem, Capacity: capa, Roofline: roof, Prices: p.Prices()}, nil
}

// checkStaticReservation refuses a static plan (serial, fixed,
// token_budget) whose smallest request cannot fit in the KV cache: each
// request reserves its prompt (at least one token) plus max_new_tokens up
// front, so the simulator would reject every request. ComputeCapacity
// refuses a max_model_len the cache cannot hold the same way, whatever the
// strategy; continuous batching reserves nothing ahead, so max_new_tokens
// alone does not bound it.
func (p *Plan) checkStaticReservation(arch model.Arch, hw model.Hardware, capa model.Capacity) error {
	if p.Batch.Strategy == "continuous" {
		return nil
	}
	bs := int64(capa.Config.BlockSize)
	least := 1 + int64(p.Model.MaxNewTokens)
	need := (least + bs - 1) / bs
	if need <= int64(capa.KVBlocks) {
		return nil
	}
	memory := fmt.Sprintf("%s's %.1f GiB", hw.Name, hw.MemoryBytes/(1<<30))
	if p.Device.MemoryLimitGiB > 0 {
		memory = fmt.Sprintf("device.memory_limit_gib %g GiB", p.Device.MemoryLimitGiB)
	}
	return fmt.Errorf("model.max_new_tokens: strategy %q reserves prompt + max_new_tokens of KV cache for every request: "+
		"a 1-token prompt + %d tokens needs %d blocks of %d tokens, but the KV cache of %s on %d× %s holds %d blocks (%d tokens: %s × device.gpu_memory_utilization %g, less weights and activation reserve), so every request would be rejected; "+
		"lower model.max_new_tokens, or raise device.gpu_memory_utilization or device.count",
		p.Batch.Strategy, p.Model.MaxNewTokens, need, bs, arch.Name, p.Device.Count, hw.Name, capa.KVBlocks, capa.MaxTokens,
		memory, p.Device.GPUMemoryUtilization)
}
