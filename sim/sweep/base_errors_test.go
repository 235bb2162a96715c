package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// loadWithBase writes the default continuous plan, edited old → new, as
// base.toml beside a spec of body, and loads and expands the spec.
func loadWithBase(t *testing.T, old, new, body string) (basePath string, err error) {
	t.Helper()
	data, err := os.ReadFile("../../cmd/servesim/defaults/4-continuous.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("base plan has no %q", old)
	}
	dir := t.TempDir()
	basePath = filepath.Join(dir, "base.toml")
	os.WriteFile(basePath, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
	path := filepath.Join(dir, "sweep.toml")
	os.WriteFile(path, []byte(`base = "base.toml"`+"\n"+body+sloTOML), 0o644)
	s, err := LoadSpec(path)
	if err != nil {
		return basePath, err
	}
	_, err = Expand(s, model.DefaultCatalog())
	return basePath, err
}

// A bad value in the base plan file is named by that file and its key, as
// loading the plan would name it, not by the spec alone; a bad value the
// spec gives (inline or swept) is the spec's.
func TestExpandNamesTheBasePlanOfABadValue(t *testing.T) {
	sweepSeqs := "[sweep]\n\"batch.max_num_seqs\" = [16, 64]\n"
	for _, c := range []struct{ name, old, new, want string }{
		{"out of range", "pue = 1.2", "pue = 0.5", ": line 24: cost.pue: must be a finite number in [1, 100]"},
		{"unknown device", `model = "H100-SXM-80G"`, `model = "Z100"`, `: line 15: device.model: model: unknown hardware "Z100"`},
		{"unknown key", "name = ", "nam = ", ": line 2: unknown key model.nam"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, err := loadWithBase(t, c.old, c.new, sweepSeqs)
			if err == nil || !strings.Contains(err.Error(), "base "+base+c.want) {
				t.Errorf("err = %v\nwant it to name %s and %q", err, base, c.want)
			}
		})
	}
	t.Run("wrong type", func(t *testing.T) {
		base, err := loadWithBase(t, "pue = 1.2", `pue = "x"`, sweepSeqs)
		data, _ := os.ReadFile(base)
		line := 1 + strings.Count(string(data[:strings.Index(string(data), "pue =")]), "\n")
		want := fmt.Sprintf("base %s: toml: line %d (last key \"cost.pue\")", base, line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to mention %q, the base plan's line", err, want)
		}
	})
	t.Run("inline in the spec", func(t *testing.T) {
		base, err := loadWithBase(t, "pue = 1.2", "pue = 1.2", sweepSeqs+"[cost]\npue = 0.5\n")
		if err == nil || strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "sweep.toml: line 5: cost.pue: must be") {
			t.Errorf("err = %v\nwant the spec's line, not naming %s", err, base)
		}
	})
	t.Run("swept", func(t *testing.T) {
		base, err := loadWithBase(t, "pue = 1.2", "pue = 1.2", "[sweep]\n\"device.gpu_memory_utilization\" = [0.9, 1.5]\n")
		if err == nil || strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "config 1 (continuous gpu_memory_utilization=1.5): device.gpu_memory_utilization") {
			t.Errorf("err = %v\nwant the config's, not naming %s", err, base)
		}
	})
	t.Run("replaced by the sweep", func(t *testing.T) {
		if _, err := loadWithBase(t, "gpu_memory_utilization = 0.9", "gpu_memory_utilization = 1.5", "[sweep]\n\"device.gpu_memory_utilization\" = [0.8, 0.9]\n"); err != nil {
			t.Errorf("every config replaces the base plan's bad value: %v", err)
		}
	})
}

// A wrong type or an unknown key in the spec's own plan sections is the
// spec file's, reported at its line when the spec is read, not at a line of
// a config's generated plan.
func TestSpecNamesItsLineOfABadInlineValue(t *testing.T) {
	for _, c := range []struct{ name, inline, key, want string }{
		{"wrong type", "[batch]\nmax_num_seqs = \"four\"\n", "max_num_seqs =", `(last key "batch.max_num_seqs"): incompatible types`},
		{"wrong type among sections", "[model]\nname = \"Llama-3.1-8B\"\n\n[cost]\npue = \"x\"\n", "pue =", `(last key "cost.pue"): incompatible types`},
		{"float for an integer", "[model]\nmax_new_tokens = 1.5\n", "max_new_tokens =", `(last key "model.max_new_tokens"): incompatible types`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := "# a spec\n[sweep]\n\"batch.max_num_seqs\" = [16, 64]\n\n" + c.inline
			path, s, err := writeSpec(t, `base = "base.toml"`+"\n"+body+sloTOML)
			if err == nil {
				_, err = Expand(s, model.DefaultCatalog())
			}
			text, _ := os.ReadFile(path)
			line := 1 + strings.Count(string(text[:strings.Index(string(text), c.key)]), "\n")
			want := fmt.Sprintf("%s: toml: line %d %s", path, line, c.want)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant it to mention %q, the spec's line", err, want)
			}
		})
	}
	t.Run("unknown key", func(t *testing.T) {
		path, _, err := writeSpec(t, `base = "base.toml"`+"\n[batch]\nmax_num_seqz = 4\n"+sloTOML)
		if want := path + ": line 3: unknown key batch.max_num_seqz"; err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %q, from reading the spec rather than from a config", err, want)
		}
	})
	t.Run("key in another case", func(t *testing.T) {
		path, _, err := writeSpec(t, `base = "base.toml"`+"\n[cost]\nPUE = 1.3\n"+sloTOML)
		if want := path + ": line 3: unknown key cost.PUE (keys are case-sensitive: cost.pue)"; err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	})
	t.Run("valid inline sections", func(t *testing.T) {
		_, s, err := writeSpec(t, `base = "base.toml"`+"\n[batch]\nmax_num_seqs = 32\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\n"+sloTOML)
		if err != nil {
			t.Fatal(err)
		}
		if ex := mustExpand(t, s); ex.Configs[0].Plan.Batch.MaxNumSeqs != 32 {
			t.Errorf("max_num_seqs = %d, want the inline 32", ex.Configs[0].Plan.Batch.MaxNumSeqs)
		}
	})
}

// A value out of range is named at its line, as loading a plan names it:
// the base plan file's line for a value of the base plan, the spec's own
// line for one of the spec's plan sections.
func TestExpandGivesTheLineOfAnOutOfRangeValue(t *testing.T) {
	lineOf := func(text []byte, key string) int {
		return 1 + strings.Count(string(text[:strings.Index(string(text), key)]), "\n")
	}
	t.Run("base plan", func(t *testing.T) {
		base, err := loadWithBase(t, "pue = 1.2", "pue = 0.5", "[sweep]\n\"batch.max_num_seqs\" = [16, 64]\n")
		data, _ := os.ReadFile(base)
		want := fmt.Sprintf("base %s: line %d: cost.pue: must be", base, lineOf(data, "pue ="))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to mention %q", err, want)
		}
	})
	t.Run("inline in the spec", func(t *testing.T) {
		path, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n\"batch.max_num_seqs\" = [16, 64]\n[cost]\npue = 0.5\n"+sloTOML)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Expand(s, model.DefaultCatalog())
		want := fmt.Sprintf("%s: line 5: cost.pue: must be", path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to mention %q, the spec's line", err, want)
		}
	})
}

// A swept device the catalog does not know is named as unknown: asking
// for its price sent the user to add one, only to be told that next.
func TestExpandNamesAnUnknownSweptDeviceBeforeItsPrice(t *testing.T) {
	body := "[sweep]\n\"device.model\" = [\"H100-SXM-80G\", \"Z100\"]\n"
	_, err := loadWithBase(t, "pue = 1.2", "pue = 1.2", body)
	if err == nil || !strings.Contains(err.Error(), `device.model: model: unknown hardware "Z100"`) || strings.Contains(err.Error(), "price") {
		t.Errorf("err = %v\nwant it to name the unknown device Z100, not its price", err)
	}
}
