package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config's row names its precision by the catalog's name, as a swept
// precision and the simulated trace's metadata do: a base plan's alias
// ("bfloat16", " BF16") was written as it stood, and two configs of one
// precision read as different ones.
func TestConfigRowNamesTheBasePrecisionByItsCanonicalName(t *testing.T) {
	base, err := os.ReadFile("../../cmd/servesim/defaults/4-continuous.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, alias := range []string{"bfloat16", " BF16"} {
		dir := t.TempDir()
		aliased := strings.Replace(string(base), `precision = "bf16"`, `precision = "`+alias+`"`, 1)
		if aliased == string(base) {
			t.Fatal(`precision = "bf16" not found in the default plan`)
		}
		if err := os.WriteFile(filepath.Join(dir, "base.toml"), []byte(aliased), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "sweep.toml")
		if err := os.WriteFile(path, []byte(`base = "base.toml"`+"\n[sweep]\nbatch.max_num_seqs = [64]\n"+sloTOML), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSpec(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := configRow(&mustExpand(t, s).Configs[0]).Precision; got != "bf16" {
			t.Errorf("base precision %q: row precision = %q, want bf16", alias, got)
		}
	}
}
