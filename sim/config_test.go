package sim

import (
	"strings"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	for _, name := range Policies {
		p, err := ParsePolicy(name)
		if err != nil || p.Name != name {
			t.Fatalf("ParsePolicy(%q) = %+v, %v", name, p, err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("default %s: %v", name, err)
		}
	}
	if _, err := ParsePolicy("Continuous "); err != nil {
		t.Errorf("case and space: %v", err)
	}
	if _, err := ParsePolicy("lifo"); err == nil || !strings.Contains(err.Error(), "lifo") {
		t.Errorf("unknown policy: %v", err)
	}
}

func TestConfigValidateNamesField(t *testing.T) {
	ok := func() Config { c := DefaultConfig(); c.Step = testTimer; c.TotalBlocks = 100; return c }
	if c := ok(); c.Validate() != nil {
		t.Fatal(c.Validate())
	}
	for _, tc := range []struct {
		field string
		edit  func(*Config)
	}{
		{"BlockSize", func(c *Config) { c.BlockSize = 0 }},
		{"TotalBlocks", func(c *Config) { c.TotalBlocks = 0 }},
		{"Config.Step", func(c *Config) { c.Step = nil }},
		{"Devices", func(c *Config) { c.Devices = 0 }},
		{"HashBlockSize", func(c *Config) { c.HashBlockSize = -1 }},
		// Past any prompt: the affinity cache would hold no entry.
		{"HashBlockSize = 1099511627776", func(c *Config) { c.HashBlockSize = 1 << 40 }},
		{"Linear.Ck", func(c *Config) { c.Step = Linear{C0: 1, Ck: -1} }},
		{"Linear.Cq", func(c *Config) { c.Step = Linear{C0: 1, Cq: -1} }}, // stretches would skip it
		{"MaxNewTokens", func(c *Config) { c.MaxNewTokens = 1<<32 + 1 }},  // int32 would make it 1
		{"Linear", func(c *Config) { c.Step = Linear{Cp: 1} }},
		{"prompt step", func(c *Config) { c.Step = Linear{Cd: 1, Ck: 1} }},
		{"Roofline.FLOPS", func(c *Config) { c.Step = Roofline{BandwidthBytesPerSec: 1, OverheadSec: 1} }},
		{"MaxNumSeqs", func(c *Config) { c.Policy.MaxNumSeqs = 0 }},
		{"MaxNumBatchedTokens", func(c *Config) { c.Policy.MaxNumBatchedTokens = 10 }},
		{"MaxModelLen (16384)", func(c *Config) { c.Policy.ChunkedPrefill = false; c.MaxModelLen = 16384 }},
		{"BatchSize", func(c *Config) { c.Policy = PolicyConfig{Name: Fixed} }},
		{"MaxWaitMs", func(c *Config) { c.Policy = PolicyConfig{Name: Fixed, BatchSize: 2, MaxWaitMs: -1} }},
		// 1e13 ms is past int64 nanoseconds: the batch would start at once.
		{"MaxWaitMs", func(c *Config) { c.Policy = PolicyConfig{Name: TokenBudget, TokenBudget: 100, MaxWaitMs: 1e13} }},
		{"TokenBudget", func(c *Config) { c.Policy = PolicyConfig{Name: TokenBudget} }},
		{"PolicyConfig.Name", func(c *Config) { c.Policy.Name = "x" }},
		{"Config.Power", func(c *Config) { c.Power = func(float64) float64 { return -1 } }},
	} {
		c := ok()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v", tc.field, err)
		}
		if _, err := Run(t.Context(), c, newSliceReader(nil), nil); err == nil {
			t.Errorf("%s: Run accepted an invalid config", tc.field)
		}
	}
}
