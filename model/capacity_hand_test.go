package model

import "testing"

// The KV layouts of a continuous plan (max_num_batched_tokens 8192,
// max_num_seqs 256, utilization 0.9, blocks of 16) computed by hand, for
// shapes that differ where the layout does: the GQA ratio, the vocabulary
// (sampler logits), MHA on another device, and tensor parallelism.
func TestCapacityContinuousPlansByHand(t *testing.T) {
	const (
		h100 = 81559 * mib * 0.9 // 76,968,728,985.6 B usable
		a100 = 81920 * mib * 0.9 // 77,309,411,328 B usable
	)
	for _, tc := range []struct {
		arch, hw                    string
		tp, maxModelLen             int
		usable, weights, reserve    float64 // per device
		budget, kvPerTokenPerDevice float64
		blocks, maxTokens           int
	}{
		// 8,030,261,248 × 2 B; 2^30 + 8192·(4·4096 + 3·14336)·2 + 256·128,256·4
		// = 1,073,741,824 + 973,078,528 + 131,334,144; 2·32·8·128·2 B/token;
		// (76,968,728,985.6 − 16,060,522,496 − 2,178,154,496) / 2,097,152
		// = 28004.8, the README's figure (vLLM 0.6 logs 28,124, 0.6.5 27,284).
		{"Llama-3.1-8B", "H100-SXM-80G", 1, 8192, h100, 16_060_522_496, 2_178_154_496, 58_730_051_993.6, 131072, 28004, 448064},
		// GQA 7:1 and a 152,064-token vocabulary: 7,615,616,512 × 2 B;
		// 2^30 + 8192·(4·3584 + 3·18944)·2 + 256·152,064·4 = 1,073,741,824
		// + 1,166,016,512 + 155,713,536; 2·28·4·128·2 = 57,344 B/token;
		// 59,342,024,089.6 / 917,504 = 64677.9.
		{"Qwen2.5-7B", "H100-SXM-80G", 1, 8192, h100, 15_231_233_024, 2_395_471_872, 59_342_024_089.6, 57344, 64677, 1034832},
		// MHA on an A100: 6,738,415,616 × 2 B; 2^30 + 8192·(4·4096 +
		// 3·11008)·2 + 256·32,000·4 = 1,073,741,824 + 809,500,672 +
		// 32,768,000; 2·32·32·128·2 = 524,288 B/token;
		// 61,916,569,600 / 8,388,608 = 7381.0 (vLLM 0.2 logged 7,351).
		{"Llama-2-7B", "A100-80G", 1, 4096, a100, 13_476_831_232, 1_916_010_496, 61_916_569_600, 524288, 7381, 118096},
		// TP 2: half the weights, KV heads and FFN activations per device;
		// 2^30 + 8192·(4·4096 + 3·14336/2)·2 + 131,334,144 = 1,825,832,960;
		// 67,112,634,777.6 / (65,536 × 16) = 64003.2 (vLLM 0.6.5 logs 60,385:
		// NCCL's buffers, which the fixed reserve leaves out, take 1.8 GiB more).
		{"Llama-3.1-8B", "H100-SXM-80G", 2, 8192, h100, 8_030_261_248, 1_825_832_960, 67_112_634_777.6, 65536, 64003, 1024048},
	} {
		c, err := ComputeCapacity(mustArch(t, tc.arch), mustHW(t, tc.hw), MemoryConfig{
			MaxModelLen: tc.maxModelLen, TensorParallel: tc.tp, ProfileTokens: 8192, ProfileSeqs: 256,
		})
		if err != nil {
			t.Fatalf("%s TP %d: %v", tc.arch, tc.tp, err)
		}
		if c.UsableBytesPerDevice != tc.usable || c.WeightBytesPerDevice != tc.weights || c.ActivationReserveBytes != tc.reserve {
			t.Errorf("%s TP %d: usable %.1f, weights %.0f, reserve %.0f; want %.1f, %.0f, %.0f",
				tc.arch, tc.tp, c.UsableBytesPerDevice, c.WeightBytesPerDevice, c.ActivationReserveBytes, tc.usable, tc.weights, tc.reserve)
		}
		if !near(c.KVBudgetBytes, tc.budget, 1e-12) || c.KVBytesPerTokenPerDevice != tc.kvPerTokenPerDevice {
			t.Errorf("%s TP %d: budget %.1f, KV/token/device %.0f; want %.1f, %.0f",
				tc.arch, tc.tp, c.KVBudgetBytes, c.KVBytesPerTokenPerDevice, tc.budget, tc.kvPerTokenPerDevice)
		}
		if c.KVBlocks != tc.blocks || c.MaxTokens != tc.maxTokens {
			t.Errorf("%s TP %d: %d blocks (%d tokens), want %d (%d)", tc.arch, tc.tp, c.KVBlocks, c.MaxTokens, tc.blocks, tc.maxTokens)
		}
	}
}
