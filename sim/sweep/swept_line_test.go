package sweep

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// A swept value wrong on its own is named at the spec's line that lists
// it, as a refused inline or base plan value is, whether the key is a
// quoted dotted key or sits in a sub-table of [sweep].
func TestExpandNamesTheLineOfABadSweptValue(t *testing.T) {
	for _, c := range []struct{ sweep, want string }{
		{"[sweep]\n\"device.gpu_memory_utilization\" = [0.9]\n\"device.count\" = [0, 1]\n",
			"line 4: config 0 (continuous count=0 gpu_memory_utilization=0.9): device.count: must be ≥ 1, got 0"},
		{"[sweep.device]\ncount = [1]\nmax_model_len = [0]\n",
			"line 4: config 0 (continuous count=1 max_model_len=0): device.max_model_len: must be ≥ 1, got 0"},
	} {
		_, s, err := writeSpec(t, "base = \"base.toml\"\n"+c.sweep+sloTOML)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Expand(s, model.DefaultCatalog())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sweep\n%s\nerr = %v\nwant it to mention %q", c.sweep, err, c.want)
		}
	}
}
