package sweep

import (
	"strings"
	"testing"
)

// A refused [sweep] key or value is named at the spec's line that sets
// it, as one of [slo] or [constraints] is, whether the key is quoted and
// dotted or sits in a sub-table.
func TestParseSweepNamesTheLineOfABadValue(t *testing.T) {
	head := `base = "base.toml"` + sloTOML // lines 1–5
	for _, c := range []struct{ body, want string }{
		{"[sweep]\n\"device.count\" = [1, 2]\n\"batch.max_num_seqs\" = [16, \"x\"]\n", "line 8: sweep.batch.max_num_seqs: value 1"},
		{"[sweep]\n\"batch.max_num_seqs\" = []\n", "line 7: sweep.batch.max_num_seqs: empty list"},
		{"[sweep.batch]\nmax_num_seqs = { from = 4, to = 2, step = 1 }\n", "line 7: sweep.batch.max_num_seqs: range"},
		{"[sweep]\n\"device.count\" = [1]\n\"batch.foo\" = [1]\n", "line 8: sweep.batch.foo: unknown key"},
		{"[sweep]\n\"batch.strategy\" = [\"nope\"]\n", "line 7: sweep.batch.strategy: unknown strategy"},
		{"[sweep]\n\"batch.batch_size\" = [4]\n", "line 7: sweep.batch.batch_size: applies only"},
		{"[sweep]\nreplicas = [0]\n", "line 7: sweep.replicas: must be ≥ 1"},
		{"[sweep]\n\"model.precision\" = [\"fp8\", \"float8\"]\n", "line 7: sweep.model.precision: fp8 and float8"},
		{"[sweep.device]\n\"count\" = [1]\n[sweep]\n\"device.count\" = [2]\n", "sweep.device.count: given twice"},
	} {
		_, _, err := writeSpec(t, head+"\n"+c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spec\n%s\nerr = %v, want %q", c.body, err, c.want)
		}
	}
}
