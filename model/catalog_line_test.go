package model

import (
	"strings"
	"testing"
)

// An error in the second entry of an array of tables names that entry's
// line, not the first's or the last's.
func TestLoadTOMLErrorsNameTheLine(t *testing.T) {
	const arch1 = "[[arch]]\nname = \"Llama-3.1-8B\"\nmax_context = 8192\n"
	const hw1 = "[[hardware]]\nname = \"A100-80G\"\nprice_per_hour = 1.5\n[hardware.flops]\nbf16 = 1e14\n"
	for _, c := range []struct{ data, want string }{
		{arch1 + "[[arch]]\nlayers = 2\n" + arch1, "user.toml: line 4: arch entry 2 has no name"},
		{arch1 + "[[arch]]\nname = \"odd\"\nlayers = 2\nhidden = 100\nheads = 3\n", "user.toml: line 4: architecture odd: head_dim not given"},
		{arch1 + "[[arch]]\nname = \"Mistral-7B\"\nkv_heads = 5\n" + arch1, "user.toml: line 4: architecture Mistral-7B: heads = 32 is not a multiple of kv_heads = 5"},
		{hw1 + "[[hardware]]\nname = \"new-gpu\"\nmemory_bytes = 1e9\n", "user.toml: line 6: hardware new-gpu: missing required key"},
		{hw1 + "[[hardware]]\nname = \"L40S\"\n[hardware.flops]\nbf16 = 1e14\nfp6 = 1.0\n", `user.toml: line 10: hardware L40S: flops key "fp6": unknown precision (valid: `},
		{hw1 + "[[hardware]]\nname = \"L40S\"\nidle_watts = 1e9\n" + hw1, "user.toml: line 6: hardware L40S: need 0 <= idle_watts"},
		{arch1 + "[[arch]]\nname = \"x\"\nmax_contex = 1\n", `user.toml: line 6: unknown key "arch.max_contex"`},
		{arch1 + "[[arch]]\nname = \"x\"\nLayers = 1\n", "user.toml: line 6: unknown key arch.Layers (keys are case-sensitive: arch.layers)"},
	} {
		err := DefaultCatalog().LoadTOMLData([]byte(c.data), "user.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadTOMLData(%q) = %v\nwant %q", c.data, err, c.want)
		}
	}
}
