package model

import (
	"math"
	"strings"
	"testing"
)

// A memory figure far past any device's (a catalog entry's exponent typed
// wrong) is refused naming the block count, instead of a count that wraps
// round to a negative number of blocks.
func TestCapacityRefusesUncountableBlocks(t *testing.T) {
	a, h := mustArch(t, "Llama-3.1-8B"), mustHW(t, "H100-SXM-80G")
	for _, mem := range []float64{1e22, 1e30, 1e300} {
		h.MemoryBytes = mem
		c, err := ComputeCapacity(a, h, MemoryConfig{MaxModelLen: 8192})
		if err == nil || !strings.Contains(err.Error(), "more than can be counted") || !strings.Contains(err.Error(), "memory_bytes") {
			t.Errorf("memory %g: blocks %d, err %v: want the block count refused", mem, c.KVBlocks, err)
		} else if len(err.Error()) > 400 {
			t.Errorf("memory %g: error of %d characters: want its figures short: %v", mem, len(err.Error()), err)
		}
	}
	// The largest count that fits is kept as it is.
	h.MemoryBytes = 1e14
	c, err := ComputeCapacity(a, h, MemoryConfig{MaxModelLen: 8192})
	if err != nil || c.KVBlocks <= 0 || c.MaxTokens != c.KVBlocks*16 {
		t.Errorf("1e14 B: blocks %d, tokens %d, %v", c.KVBlocks, c.MaxTokens, err)
	}
}

// A sequence of nearly MaxInt tokens needs a positive number of blocks:
// the ceiling must not overflow on the way.
func TestCapacityBlocksPerSequenceAtMaxInt(t *testing.T) {
	a, h := mustArch(t, "servesim-tiny"), mustHW(t, "H100-SXM-80G")
	a.MaxContext = math.MaxInt
	c, err := ComputeCapacity(a, h, MemoryConfig{BlockSize: 16})
	if want := math.MaxInt/16 + 1; c.BlocksPerMaxLenSeq != want {
		t.Errorf("blocks per max-length sequence = %d, want %d", c.BlocksPerMaxLenSeq, want)
	}
	if err == nil || !strings.Contains(err.Error(), "fewer than the") {
		t.Errorf("err %v: want the sequence refused as not fitting", err)
	}
}
