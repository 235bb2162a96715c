package model

import (
	"strings"
	"testing"
)

// A params figure far from what the shape holds (a typo, a figure in
// billions) sizes the weights and the roofline by it: it is refused with
// the file, line, entry, field and the shape's estimate.
func TestLoadTOMLRefusesParamsFarFromShape(t *testing.T) {
	const shape = "layers = 32\nhidden = 4096\nheads = 32\nkv_heads = 8\nintermediate = 14336\nvocab = 128256\nmax_context = 8192\n"
	const moe = "layers = 32\nhidden = 4096\nheads = 32\nkv_heads = 8\nintermediate = 14336\nvocab = 32000\nmax_context = 8192\nexperts = 8\nexperts_per_token = 2\n"
	for _, c := range []struct{ name, data, want string }{
		{"billions", "[[arch]]\nname = \"new\"\nparams = 8\n" + shape, "user.toml: line 3: architecture new: params = 8 is outside"},
		{"1000× typo", "[[arch]]\nname = \"new\"\nparams = 8.03e12\n" + shape, "user.toml: line 3: architecture new: params = 8.03e+12 is outside"},
		{"moe active", "[[arch]]\nname = \"moe\"\nparams = 46.7e9\nactive_params = 1.29e9\n" + moe, "user.toml: line 4: architecture moe: active_params = 1.29e+09 is outside"},
		{"override", "[[arch]]\nname = \"Llama-3.1-8B\"\nparams = 5\n", "user.toml: line 3: architecture Llama-3.1-8B: params = 5 is outside"},
	} {
		err := DefaultCatalog().LoadTOMLData([]byte(c.data), "user.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the shape gives") {
			t.Errorf("%s: LoadTOMLData = %v\nwant %q and the shape's estimate", c.name, err, c.want)
		}
	}
}

// Overriding a built-in's shape keeps its params; when the new shape no
// longer fits them, the entry is refused and told to give params rather
// than sized by the old count.
func TestLoadTOMLRefusesShapeOverrideThatStrandsParams(t *testing.T) {
	data := "[[arch]]\nname = \"Llama-3.1-8B\"\nlayers = 160\nhidden = 8192\n"
	err := DefaultCatalog().LoadTOMLData([]byte(data), "user.toml")
	if err == nil || !strings.Contains(err.Error(), "user.toml: line 1: architecture Llama-3.1-8B: params = 8.03026e+09 (kept from the built-in entry) is outside") ||
		!strings.Contains(err.Error(), "give params") {
		t.Fatalf("LoadTOMLData = %v, want a refusal naming the kept params and asking for params", err)
	}
	// A small change of shape keeps params within the band.
	if err := DefaultCatalog().LoadTOMLData([]byte("[[arch]]\nname = \"Llama-3.1-8B\"\nlayers = 36\n"), "user.toml"); err != nil {
		t.Fatal(err)
	}
}

// Every built-in entry and the sample catalog fit their shapes.
func TestCatalogParamsFitShapes(t *testing.T) {
	c := DefaultCatalog()
	if err := c.LoadTOML("testdata/catalog.toml"); err != nil {
		t.Fatal(err)
	}
	for _, name := range c.ArchNames() {
		a, _ := c.Arch(name)
		if off := a.paramsOffShape(); len(off) > 0 {
			t.Errorf("%s: %+v off its shape", name, off)
		}
	}
}

// A mixture of experts' counts differ, so an override giving one keeps the
// built-in's other; a kept active count that the new shape no longer fits
// is refused, named as kept, like a kept params.
func TestLoadTOMLMoEOverrideKeepsTheOtherCount(t *testing.T) {
	for _, c := range []struct {
		data           string
		params, active float64
	}{
		{"params = 50e9\n", 50e9, 12_879_925_248},
		{"active_params = 14e9\n", 46_702_792_704, 14e9},
	} {
		cat := DefaultCatalog()
		if err := cat.LoadTOMLData([]byte("[[arch]]\nname = \"Mixtral-8x7B\"\n"+c.data), "user.toml"); err != nil {
			t.Errorf("%q: %v", c.data, err)
			continue
		}
		if a, _ := cat.Arch("Mixtral-8x7B"); a.Params != c.params || a.ActiveParams != c.active {
			t.Errorf("%q: params %g, active_params %g, want %g and %g", c.data, a.Params, a.ActiveParams, c.params, c.active)
		}
	}
	err := DefaultCatalog().LoadTOMLData([]byte("[[arch]]\nname = \"Mixtral-8x7B\"\nexperts_per_token = 8\n"), "user.toml")
	if err == nil || !strings.Contains(err.Error(), "active_params = 1.28799e+10 (kept from the built-in entry) is outside") || !strings.Contains(err.Error(), "give active_params") {
		t.Errorf("every expert active: LoadTOMLData = %v, want the kept active_params refused and asked for", err)
	}
}

// An override that turns a dense built-in into a mixture of experts
// without active_params would keep the dense count as the active one,
// which the band around the new shape's estimate does not catch (7.2e9
// against 12.9e9): it is refused at the experts key's line and told to
// give active_params.
func TestLoadTOMLRefusesDenseToMoEWithoutActiveParams(t *testing.T) {
	data := "[[arch]]\nname = \"Mistral-7B\"\nexperts = 8\nexperts_per_token = 2\nparams = 47e9\n"
	err := DefaultCatalog().LoadTOMLData([]byte(data), "user.toml")
	if err == nil || !strings.Contains(err.Error(), "user.toml: line 3: architecture Mistral-7B:") || !strings.Contains(err.Error(), "give active_params") {
		t.Errorf("LoadTOMLData = %v, want a refusal naming the file, the experts key's line and the entry and asking for active_params", err)
	}
	cat := DefaultCatalog()
	if err := cat.LoadTOMLData([]byte(data+"active_params = 12.9e9\n"), "user.toml"); err != nil {
		t.Fatal(err)
	}
	if a, _ := cat.Arch("Mistral-7B"); a.Params != 47e9 || a.ActiveParams != 12.9e9 {
		t.Errorf("params %g, active_params %g, want 4.7e10 and 1.29e10", a.Params, a.ActiveParams)
	}
}
