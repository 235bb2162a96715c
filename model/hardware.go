package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Hardware is one accelerator (or host) model.
type Hardware struct {
	Name string
	// MemoryBytes is the device's total memory as NVML (nvidia-smi)
	// reports it, slightly different from the marketing figure; CUDA, and
	// so a serving engine, sees a few hundred MiB less.
	MemoryBytes          float64
	BandwidthBytesPerSec float64 // peak memory bandwidth
	// FLOPS is the peak dense (no 2:4 sparsity) matmul throughput per
	// precision, in operations per second. A missing entry means the device
	// has no fast path for that precision.
	FLOPS     map[Precision]float64
	TDPWatts  float64 // board power limit
	IdleWatts float64 // typical draw when idle but allocated
	// PricePerHour is a default on-demand price per device-hour in USD;
	// each catalog entry says where its number comes from.
	PricePerHour float64
}

// PeakFLOPS is the peak dense throughput at precision p. It errors, naming
// the precisions the device does support, when p has no published figure
// for this device (fp8 on A100, int4 on Hopper).
func (h Hardware) PeakFLOPS(p Precision) (float64, error) {
	if f, ok := h.FLOPS[p]; ok && f > 0 {
		return f, nil
	}
	return 0, fmt.Errorf("model: hardware %s has no %s compute figure (has: %s)", h.Name, p, strings.Join(h.precisionNames(), ", "))
}

func (h Hardware) precisionNames() []string {
	var names []string
	for _, p := range Precisions() {
		if h.FLOPS[p] > 0 {
			names = append(names, string(p))
		}
	}
	return names
}

// ComputePrecision is the precision the matmuls run at when weights are
// stored at w on this device:
//
//   - fp32, fp16, bf16: the same precision;
//   - fp8 and int8: W8A8 on the device's 8-bit tensor cores when it has
//     them, otherwise weight-only (W8A16, e.g. Marlin FP8 kernels on
//     Ampere), computing in 16 bits;
//   - int4: weight-only (W4A16, as AWQ/GPTQ/Marlin kernels run in vLLM):
//     weights are dequantized and multiplied at the activation precision,
//     16 bits. The device's int4 tensor-core figure, if any, is not used.
//
// "16 bits" means bf16 when the device lists it, else fp16, else fp32.
func (h Hardware) ComputePrecision(w Precision) Precision {
	if w != INT4 && h.FLOPS[w] > 0 {
		return w
	}
	for _, p := range []Precision{BF16, FP16, FP32} {
		if h.FLOPS[p] > 0 {
			return p
		}
	}
	if w.Valid() && w.Bytes() < 2 {
		// Quantized weights still compute in 16 bits, which this device
		// lacks: PeakFLOPS says so rather than use an 8- or 4-bit figure.
		return BF16
	}
	return w
}

// PowerWatts is the device power draw at a utilization in [0, 1]:
// IdleWatts + (TDPWatts − IdleWatts) × utilization, a linear model. The
// utilization is clamped to [0, 1]; NaN counts as 0.
func (h Hardware) PowerWatts(utilization float64) float64 {
	u := utilization
	if math.IsNaN(u) || u < 0 {
		u = 0
	} else if u > 1 {
		u = 1
	}
	return h.IdleWatts + (h.TDPWatts-h.IdleWatts)*u
}

// Validate checks that the hardware entry is complete and consistent.
func (h Hardware) Validate() error {
	var p problems
	pos := func(name string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			p.add("%s = %g, must be > 0", name, v)
		}
	}
	if h.Name == "" {
		p.add("name is empty")
	}
	pos("memory_bytes", h.MemoryBytes)
	pos("bandwidth_bytes_per_sec", h.BandwidthBytesPerSec)
	keys := make([]string, 0, len(h.FLOPS))
	for k := range h.FLOPS {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !Precision(k).Valid() {
			p.add("flops: unknown precision %q (valid: %s)", k, validPrecisions())
		} else if v := h.FLOPS[Precision(k)]; !(v >= 0) || math.IsInf(v, 0) {
			p.add("flops.%s = %g, must be >= 0", k, v)
		}
	}
	if len(h.precisionNames()) == 0 {
		p.add("flops has no positive entry")
	}
	if !(h.IdleWatts >= 0) || !(h.TDPWatts >= h.IdleWatts) || math.IsInf(h.TDPWatts, 0) {
		p.add("need 0 <= idle_watts (%g) <= tdp_watts (%g)", h.IdleWatts, h.TDPWatts)
	}
	if !(h.PricePerHour >= 0) || math.IsInf(h.PricePerHour, 0) {
		p.add("price_per_hour = %g, must be >= 0", h.PricePerHour)
	}
	return p.err("hardware", h.Name)
}

// clone returns a copy that shares no map with h.
func (h Hardware) clone() Hardware {
	c := h
	c.FLOPS = make(map[Precision]float64, len(h.FLOPS))
	for k, v := range h.FLOPS {
		c.FLOPS[k] = v
	}
	return c
}
