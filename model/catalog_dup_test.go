package model

import (
	"strings"
	"testing"
)

// An entry named twice in one file (names match without regard to case)
// is refused with both lines: the later silently overrode the earlier's
// fields, so which max_context or price held depended on the order.
func TestLoadTOMLRefusesANameGivenTwice(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"arch", "[[arch]]\nname = \"Llama-3.1-8B\"\nmax_context = 4096\n[[arch]]\nname = \"llama-3.1-8b\"\nmax_context = 16384\n",
			"user.toml: line 4: architecture llama-3.1-8b: named again (first at line 1)"},
		{"hardware", "[[hardware]]\nname = \"H100-SXM-80G\"\nprice_per_hour = 1\n[[hardware]]\nname = \"h100-sxm-80g\"\nprice_per_hour = 5\n",
			"user.toml: line 4: hardware h100-sxm-80g: named again (first at line 1)"},
	} {
		err := DefaultCatalog().LoadTOMLData([]byte(c.data), "user.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: LoadTOMLData = %v\nwant %q", c.name, err, c.want)
		}
	}
}
