package model

import (
	"testing"
)

func TestNewRooflineLlama8BH100(t *testing.T) {
	r, err := NewRoofline(mustArch(t, "Llama-3.1-8B"), mustHW(t, "H100-SXM-80G"), MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := Roofline{
		FLOPS:                989e12 * 0.7,
		BandwidthBytesPerSec: 3.35e12 * 0.85,
		WeightBytes:          16_060_522_496,
		KVBytesPerToken:      131072,
		FLOPsPerToken:        16_060_522_496,
		AttnFLOPsPerQueryCtx: 524288,
		OverheadSec:          0.002,
		ComputePrecision:     BF16,
	}
	if r != want {
		t.Fatalf("roofline = %+v\nwant       %+v", r, want)
	}

	// Decode, one sequence at 1000 tokens of context: memory-bound.
	// memory = (16,060,522,496 + 131072·1000) / 2.8475e12 = 5.6863 ms;
	// compute = (16,060,522,496 + 524288·1000) / 692.3e12 = 0.024 ms.
	if got, want := r.StepSeconds(0, 0, 1, 1000, 0), 16_191_594_496/2.8475e12+0.002; !near(got, want, 1e-12) {
		t.Errorf("decode step = %g, want %g", got, want)
	}
	if got := r.StepSeconds(0, 0, 1, 1000, 0); !near(got, 7.6863e-3, 1e-4) {
		t.Errorf("decode step = %g, want ≈7.686 ms", got)
	}

	// Prefill of one 4096-token chunk: compute-bound.
	// compute = (16,060,522,496·4096 + 524288·4096·4096) / 692.3e12
	//         = (65,783,900,143,616 + 8,796,093,022,208) / 692.3e12 = 107.73 ms.
	got := r.StepSeconds(4096, 4096*4096, 0, 0, 0)
	want2 := (65_783_900_143_616+8_796_093_022_208)/692.3e12 + 0.002
	if !near(got, want2, 1e-12) || !near(got, 0.10973, 1e-4) {
		t.Errorf("prefill step = %g, want %g", got, want2)
	}

	if got := r.StepSeconds(0, 0, 0, 0, 0); got != 0 {
		t.Errorf("empty step = %g", got)
	}
}

func TestRooflineTensorParallelAndPrecision(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-70B"), mustHW(t, "H100-SXM-80G")
	r, err := NewRoofline(a, h, MemoryConfig{TensorParallel: 4, WeightPrecision: FP8})
	if err != nil {
		t.Fatal(err)
	}
	if r.ComputePrecision != FP8 || r.FLOPS != 4*1979e12*0.7 || r.BandwidthBytesPerSec != 4*3.35e12*0.85 {
		t.Errorf("TP4 fp8: %+v", r)
	}
	// fp8 weights but a 16-bit embedding and LM head; bf16 KV.
	if emb := 2.0 * 128_256 * 8_192; r.WeightBytes != a.Params+emb || r.KVBytesPerToken != 327680 {
		t.Errorf("weights %g, KV/token %g", r.WeightBytes, r.KVBytesPerToken)
	}

	// int4 weights (W4A16): compute at bf16, weights at half a byte and
	// their group scales, but the embedding and LM head's at two.
	r, err = NewRoofline(mustArch(t, "Llama-3.1-8B"), mustHW(t, "A100-80G"), MemoryConfig{WeightPrecision: INT4})
	if err != nil {
		t.Fatal(err)
	}
	if r.ComputePrecision != BF16 || r.FLOPS != 312e12*0.7 || r.WeightBytes != mustArch(t, "Llama-3.1-8B").WeightBytes(INT4) {
		t.Errorf("A100 int4: %+v", r)
	}

	// TP 16 past the 8 KV heads: each rank keeps one head whole, so the
	// group reads 8 more heads' K/V projections (2 × 80 layers × 8192 ×
	// 128 × 2 bytes each) and caches twice the KV of TP 8.
	r, err = NewRoofline(a, h, MemoryConfig{TensorParallel: 16})
	if err != nil {
		t.Fatal(err)
	}
	if extra := r.WeightBytes - a.WeightBytes(BF16); extra != 8*2*80*8192*128*2 || r.KVBytesPerToken != 2*327680 {
		t.Errorf("TP16: weights %g over the model's, KV/token %g", extra, r.KVBytesPerToken)
	}

	if _, err := NewRoofline(a, h, MemoryConfig{TensorParallel: 3}); err == nil {
		t.Error("TP=3: no error")
	}
}

// A late prefill chunk reads back the KV of the prompt's earlier tokens.
// Llama-3.1-8B on one H100, a 16-token chunk after 32752 earlier tokens:
// compute = (16,060,522,496·16 + 524288·16·32768) / 692.3e12 = 0.77 ms;
// memory  = (16,060,522,496 + 131072·(16 + 32752)) / 2.8475e12 = 7.15 ms,
// not the 5.64 ms of the weights and the chunk's own KV.
func TestStepSecondsLateChunkReadsEarlierContext(t *testing.T) {
	r, err := NewRoofline(mustArch(t, "Llama-3.1-8B"), mustHW(t, "H100-SXM-80G"), MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.StepSeconds(16, 16*32768, 0, 0, 32752)
	if want := 20_355_489_792/2.8475e12 + 0.002; !near(got, want, 1e-12) || !near(got, 9.1485e-3, 1e-4) {
		t.Errorf("late chunk step = %g, want %g", got, want)
	}
	// A whole prompt in one chunk has no earlier context: unchanged.
	if whole, want := r.StepSeconds(4096, 4096*4096, 0, 0, 0), (65_783_900_143_616+8_796_093_022_208)/692.3e12+0.002; !near(whole, want, 1e-12) {
		t.Errorf("prefill step = %g, want %g", whole, want)
	}
}
