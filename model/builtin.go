package model

// Built-in catalog entries. Architecture shapes are from each model's
// Hugging Face config.json; parameter counts are the exact totals of the
// published safetensors weights (for Llama, Mistral and Mixtral they equal
// Arch.EstimateParams of the shape).

const mib = 1 << 20

func builtinArchs() []Arch {
	tiny := Arch{
		// servesim's own test shape, small enough to run anywhere.
		Name: "servesim-tiny", Layers: 8, Hidden: 512, Heads: 8, KVHeads: 4, HeadDim: 64,
		Intermediate: 1408, Vocab: 32000, MaxContext: 4096,
	}
	tiny.Params, tiny.ActiveParams = tiny.EstimateParams() // 56,369,664

	return []Arch{
		{ // meta-llama/Llama-3.1-8B config.json; 8.03e9 params
			Name: "Llama-3.1-8B", Params: 8_030_261_248, ActiveParams: 8_030_261_248,
			Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Vocab: 128256, MaxContext: 131072,
		},
		{ // meta-llama/Llama-3.1-70B config.json; 70.55e9 params
			Name: "Llama-3.1-70B", Params: 70_553_706_496, ActiveParams: 70_553_706_496,
			Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 28672, Vocab: 128256, MaxContext: 131072,
		},
		{ // meta-llama/Llama-2-7b-hf config.json (multi-head attention); 6.74e9 params
			Name: "Llama-2-7B", Params: 6_738_415_616, ActiveParams: 6_738_415_616,
			Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128,
			Intermediate: 11008, Vocab: 32000, MaxContext: 4096,
		},
		{ // meta-llama/Llama-2-70b-hf config.json; 68.98e9 params
			Name: "Llama-2-70B", Params: 68_976_648_192, ActiveParams: 68_976_648_192,
			Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 28672, Vocab: 32000, MaxContext: 4096,
		},
		{ // Qwen/Qwen2.5-7B-Instruct config.json (32768 native context; 131072
			// needs YaRN rope scaling); 7.62e9 params incl. Q/K/V biases
			Name: "Qwen2.5-7B", Params: 7_615_616_512, ActiveParams: 7_615_616_512,
			Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128,
			Intermediate: 18944, Vocab: 152064, MaxContext: 32768,
		},
		{ // Qwen/Qwen2.5-72B-Instruct config.json (32768 native context, as
			// above); 72.71e9 params incl. Q/K/V biases
			Name: "Qwen2.5-72B", Params: 72_706_203_648, ActiveParams: 72_706_203_648,
			Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128,
			Intermediate: 29568, Vocab: 152064, MaxContext: 32768,
		},
		{ // mistralai/Mistral-7B-v0.3 config.json (vocab 32768); 7.25e9 params
			Name: "Mistral-7B", Params: 7_248_023_552, ActiveParams: 7_248_023_552,
			Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Vocab: 32768, MaxContext: 32768,
		},
		{ // mistralai/Mistral-7B-v0.1 config.json (vocab 32000; its 4096-token
			// sliding window is not modelled: KV is sized for the full context); 7.24e9 params
			Name: "Mistral-7B-v0.1", Params: 7_241_732_096, ActiveParams: 7_241_732_096,
			Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Vocab: 32000, MaxContext: 32768,
		},
		{ // mistralai/Mixtral-8x7B-v0.1 config.json; 46.70e9 total, 12.88e9
			// active (attention, 2 of 8 expert FFNs, router, embeddings)
			Name: "Mixtral-8x7B", Params: 46_702_792_704, ActiveParams: 12_879_925_248,
			Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Intermediate: 14336, Vocab: 32000, MaxContext: 32768,
			Experts: 8, ExpertsPerToken: 2,
		},
		tiny,
	}
}

// Default prices are approximate 2025 on-demand per-GPU-hour list prices
// at GPU clouds (Lambda, RunPod, CoreWeave and the like); hyperscalers
// (AWS, GCP, Azure) are often 1.5–3× higher. They drift: override them in
// TOML or through Prices.DevicePerHour.
//
// Memory is the total reported by NVML/nvidia-smi, e.g. 81559
// MiB on an "80 GB" H100 (Modal, "Why does an NVIDIA H100 80GB card offer
// 85.52 GB?"). Idle power is a typical nvidia-smi reading of an idle,
// allocated GPU, not a datasheet figure. FLOPS are dense datasheet figures
// (the datasheets headline 2:4-sparse numbers; these are half of those).
func builtinHardware() []Hardware {
	hopper := func() map[Precision]float64 {
		// NVIDIA H100/H200 SXM datasheets: FP32 67 TFLOPS (CUDA cores);
		// FP16/BF16 989 TFLOPS, FP8 and INT8 1979 TFLOPS/TOPS dense tensor.
		// Hopper has no INT4 tensor cores.
		return map[Precision]float64{FP32: 67e12, FP16: 989e12, BF16: 989e12, FP8: 1979e12, INT8: 1979e12}
	}
	ampere := func() map[Precision]float64 {
		// NVIDIA A100 datasheet: FP32 19.5 TFLOPS; FP16/BF16 312, INT8 624,
		// INT4 1248 dense tensor. Ampere has no FP8.
		return map[Precision]float64{FP32: 19.5e12, FP16: 312e12, BF16: 312e12, INT8: 624e12, INT4: 1248e12}
	}
	return []Hardware{
		{ // NVIDIA H100 SXM5 datasheet: 80 GB HBM3, 3.35 TB/s, up to 700 W
			Name: "H100-SXM-80G", MemoryBytes: 81559 * mib, BandwidthBytesPerSec: 3.35e12,
			FLOPS: hopper(), TDPWatts: 700, IdleWatts: 70,
			PricePerHour: 2.99, // e.g. Lambda 8×H100 SXM on-demand, per GPU
		},
		{ // NVIDIA H200 SXM datasheet: 141 GB HBM3e, 4.8 TB/s, same compute as H100, up to 700 W
			Name: "H200-141G", MemoryBytes: 143771 * mib, BandwidthBytesPerSec: 4.8e12,
			FLOPS: hopper(), TDPWatts: 700, IdleWatts: 75,
			PricePerHour: 3.50, // GPU clouds list about $3–4 per GPU-hour
		},
		{ // NVIDIA A100 80GB SXM4 datasheet: 2.039 TB/s HBM2e, 400 W
			Name: "A100-80G", MemoryBytes: 81920 * mib, BandwidthBytesPerSec: 2.039e12,
			FLOPS: ampere(), TDPWatts: 400, IdleWatts: 55,
			PricePerHour: 1.79, // e.g. Lambda 8×A100 SXM 80GB on-demand, per GPU
		},
		{ // NVIDIA A100 40GB SXM4 datasheet: 1.555 TB/s HBM2, 400 W
			Name: "A100-40G", MemoryBytes: 40960 * mib, BandwidthBytesPerSec: 1.555e12,
			FLOPS: ampere(), TDPWatts: 400, IdleWatts: 50,
			PricePerHour: 1.29, // e.g. Lambda 8×A100 SXM 40GB on-demand, per GPU
		},
		{ // NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, 350 W; FP32 91.6
			// TFLOPS, FP16/BF16 362, FP8, INT8 and INT4 733 dense tensor
			Name: "L40S", MemoryBytes: 46068 * mib, BandwidthBytesPerSec: 864e9,
			FLOPS:    map[Precision]float64{FP32: 91.6e12, FP16: 362e12, BF16: 362e12, FP8: 733e12, INT8: 733e12, INT4: 733e12},
			TDPWatts: 350, IdleWatts: 35,
			PricePerHour: 1.00, // GPU clouds list about $0.8–1.9 per GPU-hour
		},
		{ // A generic 2-core x86 host for CPU-only runs (not a datasheet):
			// 24 GiB RAM; ~20 GB/s of DRAM bandwidth available to 2 cores;
			// 2 cores × 3 GHz × 32 FP32 FLOP/cycle (two 256-bit FMA units)
			// = 192 GFLOP/s, with fp16/bf16 converted to fp32 (same rate) and
			// int8 at 2× via AVX-VNNI; 65 W package TDP, ~20 W idle.
			Name: "cpu", MemoryBytes: 24 << 30, BandwidthBytesPerSec: 20e9,
			FLOPS:    map[Precision]float64{FP32: 192e9, FP16: 192e9, BF16: 192e9, INT8: 384e9},
			TDPWatts: 65, IdleWatts: 20,
			PricePerHour: 0.10, // ≈ a 2-vCPU cloud VM, e.g. AWS m7i.large $0.1008/h (us-east-1)
		},
	}
}
