package model

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestDefaultCatalogNames(t *testing.T) {
	c := DefaultCatalog()
	wantArchs := []string{"Llama-2-70B", "Llama-2-7B", "Llama-3.1-70B", "Llama-3.1-8B", "Mistral-7B", "Mistral-7B-v0.1", "Mixtral-8x7B", "Qwen2.5-72B", "Qwen2.5-7B", "servesim-tiny"}
	if got := c.ArchNames(); !reflect.DeepEqual(got, wantArchs) {
		t.Errorf("ArchNames = %v", got)
	}
	wantHW := []string{"A100-40G", "A100-80G", "H100-SXM-80G", "H200-141G", "L40S", "cpu"}
	if got := c.HardwareNames(); !reflect.DeepEqual(got, wantHW) || !sort.StringsAreSorted(got) {
		t.Errorf("HardwareNames = %v", got)
	}
}

func TestCatalogLookupCaseInsensitive(t *testing.T) {
	c := DefaultCatalog()
	a, err := c.Arch("LLAMA-3.1-8b")
	if err != nil || a.Name != "Llama-3.1-8B" {
		t.Fatalf("Arch = %v, %v", a.Name, err)
	}
	h, err := c.Hardware("h100-sxm-80g")
	if err != nil || h.Name != "H100-SXM-80G" {
		t.Fatalf("Hardware = %v, %v", h.Name, err)
	}
	_, err = c.Arch("gpt-5")
	if err == nil || !strings.Contains(err.Error(), `"gpt-5"`) || !strings.Contains(err.Error(), "Llama-3.1-8B, Mistral-7B") {
		t.Errorf("unknown arch error = %v", err)
	}
	_, err = c.Hardware("B200")
	if err == nil || !strings.Contains(err.Error(), "H200-141G, L40S, cpu") {
		t.Errorf("unknown hardware error = %v", err)
	}
}

func TestDefaultCatalogIsFresh(t *testing.T) {
	c := DefaultCatalog()
	h, _ := c.Hardware("H100-SXM-80G")
	h.FLOPS[BF16] = 1 // mutating a returned copy must not reach the catalog
	if err := c.AddArch(Arch{Name: "x"}); err == nil {
		t.Fatal("AddArch of an invalid arch: no error")
	}
	a, _ := c.Arch("servesim-tiny")
	a.Name = "tiny2"
	if err := c.AddArch(a); err != nil {
		t.Fatal(err)
	}
	if h2, _ := c.Hardware("H100-SXM-80G"); h2.FLOPS[BF16] != 989e12 {
		t.Error("returned Hardware shares its FLOPS map with the catalog")
	}
	if _, err := DefaultCatalog().Arch("tiny2"); err == nil {
		t.Error("DefaultCatalog shares state between calls")
	}
	if _, err := c.Arch("TINY2"); err != nil {
		t.Error(err)
	}
}

func TestLoadTOMLSample(t *testing.T) {
	c := DefaultCatalog()
	if err := c.LoadTOML("testdata/catalog.toml"); err != nil {
		t.Fatal(err)
	}
	// Override of one field keeps the others.
	a, _ := c.Arch("Llama-3.1-8B")
	want := mustArch(t, "Llama-3.1-8B")
	want.MaxContext = 8192
	if a != want {
		t.Errorf("overridden arch = %+v\nwant %+v", a, want)
	}
	// New arch with derived head_dim and params: 896/14 = 64;
	// per layer 896·896·2 + 896·128·2 + 3·896·4864 + 2·896 = 14,911,232;
	// ×24 = 357,869,568; + 2·151936·896 + 896 = 630,139,776.
	n, err := c.Arch("qwen2.5-0.5b-untied")
	if err != nil {
		t.Fatal(err)
	}
	if n.HeadDim != 64 || n.KVHeads != 2 || n.Params != 630_139_776 || n.ActiveParams != n.Params {
		t.Errorf("new arch = %+v", n)
	}
	// Hardware: price replaced, int4 added, other FLOPS kept.
	h, _ := c.Hardware("H100-SXM-80G")
	if h.PricePerHour != 2.25 || h.FLOPS[INT4] != 1.979e15 || h.FLOPS[BF16] != 989e12 || h.MemoryBytes != 81559*mib || h.TDPWatts != 700 {
		t.Errorf("overridden hardware = %+v", h)
	}
	g, err := c.Hardware("rtx-4090")
	if err != nil || g.MemoryBytes != 25_757_220_864 || g.FLOPS[FP8] != 330.3e12 {
		t.Errorf("new hardware = %+v, %v", g, err)
	}
	// The built-in catalog is untouched.
	if h, _ := DefaultCatalog().Hardware("H100-SXM-80G"); h.PricePerHour != 2.99 {
		t.Errorf("default price changed to %g", h.PricePerHour)
	}
}

func TestLoadTOMLUnknownKey(t *testing.T) {
	c := DefaultCatalog()
	err := c.LoadTOML("testdata/unknown_key.toml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{"testdata/unknown_key.toml", `"arch.max_contex"`, "max_context"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestLoadTOMLErrors(t *testing.T) {
	cases := []struct{ data, want string }{
		{"[[hardware]]\nname = \"H100-SXM-80G\"\n[hardware.flops]\nfp6 = 1.0\n", `flops key "fp6"`},
		{"[[arch]]\nlayers = 2\n", "arch entry 1 has no name"},
		{"[[hardware]]\nname = \"new-gpu\"\nmemory_bytes = 1e9\n", "user.toml: line 1: hardware new-gpu: missing required key bandwidth_bytes_per_sec, flops, tdp_watts, idle_watts, price_per_hour"},
		{"[[arch]]\nname = \"Llama-3.1-8B\"\nkv_heads = 5\n", "kv_heads = 5"},
		{"[[model]]\nname = \"x\"\n", `unknown key "model"`},
		// The decoder matches keys without regard to case: Layers set layers.
		{"[[arch]]\nname = \"Llama-3.1-8B\"\nLayers = 2\n", "arch.Layers (keys are case-sensitive: arch.layers)"},
		{"[[Hardware]]\nname = \"H100-SXM-80G\"\ntdp_watts = 1\n", "Hardware (keys are case-sensitive: hardware)"},
		{"[[arch]\n", "toml:"},
		{"[[arch]]\nname = \"x\"\nlayers = 1.5\n", "layers"},
		// The decoder names the line of the last table that sets the key.
		{"[[arch]]\nname = \"a\"\nlayers = \"z\"\n[[arch]]\nname = \"b\"\nlayers = 3\n", `user.toml: toml: line 3 (last key "arch.layers"): incompatible types`},
		// An inline array keeps no entry's position, only its own.
		{"# user\narch = [{name = \"Llama-3.1-8B\", kv_heads = 5}]\n", "user.toml: line 2 (arch array): architecture Llama-3.1-8B"},
		// The decoder drops a flops that is not a table unseen.
		{"[[hardware]]\nname = \"H100-SXM-80G\"\n\nflops = [1, \"a\", 3]\n", "user.toml: line 4: hardware H100-SXM-80G: flops: want a table of FLOP/s by precision, as flops = {fp16 = 9.9e14}, got an array"},
		{"hardware = [{name = \"H100-SXM-80G\", flops = 5}]\n", "hardware H100-SXM-80G: flops: want a table of FLOP/s by precision, as flops = {fp16 = 9.9e14}, got a number"},
	}
	for _, tc := range cases {
		c := DefaultCatalog()
		err := c.LoadTOMLData([]byte(tc.data), "user.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "user.toml") {
			t.Errorf("LoadTOMLData(%q) = %v, want an error naming user.toml and %q", tc.data, err, tc.want)
		}
	}
	if err := DefaultCatalog().LoadTOML("testdata/missing.toml"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestLoadTOMLAtomic(t *testing.T) {
	c := DefaultCatalog()
	// The first entry is valid, the second is not: nothing is applied.
	data := "[[arch]]\nname = \"Llama-3.1-8B\"\nmax_context = 1024\n\n[[arch]]\nname = \"Llama-2-7B\"\nheads = 0\n"
	if err := c.LoadTOMLData([]byte(data), "bad.toml"); err == nil {
		t.Fatal("no error")
	}
	if a, _ := c.Arch("Llama-3.1-8B"); a.MaxContext != 131072 {
		t.Errorf("partial load applied: max_context = %d", a.MaxContext)
	}
}

func TestLoadTOMLMoE(t *testing.T) {
	c := DefaultCatalog()
	// A new MoE arch giving only params: active is scaled from the shape.
	data := `[[arch]]
name = "moe-test"
params = 250000
layers = 2
hidden = 64
heads = 4
intermediate = 128
vocab = 100
max_context = 512
experts = 4
experts_per_token = 1
`
	if err := c.LoadTOMLData([]byte(data), "moe.toml"); err != nil {
		t.Fatal(err)
	}
	a, _ := c.Arch("moe-test")
	total, active := a.EstimateParams()
	if a.Params != 250000 || !near(a.ActiveParams, 250000*active/total, 1e-12) || !(a.ActiveParams < a.Params) {
		t.Errorf("moe arch = %+v", a)
	}
}

// A model that ties its LM head to the embedding holds one vocab × hidden
// matrix: its estimated parameters, and the 16-bit share of its quantized
// weights, count it once.
func TestLoadTOMLTiedEmbeddings(t *testing.T) {
	c := DefaultCatalog()
	shape := `layers = 2
hidden = 64
heads = 4
intermediate = 128
vocab = 1000
max_context = 512
`
	data := "[[arch]]\nname = \"untied\"\n" + shape + "[[arch]]\nname = \"tied\"\ntied_embeddings = true\n" + shape
	if err := c.LoadTOMLData([]byte(data), "tied.toml"); err != nil {
		t.Fatal(err)
	}
	untied, _ := c.Arch("untied")
	tied, _ := c.Arch("tied")
	if !tied.TiedEmbeddings || untied.TiedEmbeddings {
		t.Fatalf("tied_embeddings not read: tied %v, untied %v", tied.TiedEmbeddings, untied.TiedEmbeddings)
	}
	if d := untied.Params - tied.Params; d != 1000*64 {
		t.Errorf("untied − tied params = %g, want one vocab × hidden matrix (64000)", d)
	}
	for _, a := range []Arch{untied, tied} {
		emb := a.EmbeddingParams()
		if got, want := a.WeightBytes(INT4), emb*2+(a.Params-emb)*(0.5+2.5/128); got != want {
			t.Errorf("%s int4 weights = %g, want %g", a.Name, got, want)
		}
		if got := a.WeightBytes(FP16); got != a.Params*2 {
			t.Errorf("%s fp16 weights = %g, want %g", a.Name, got, a.Params*2)
		}
	}
}

// A new MoE architecture giving only active_params gets a total scaled
// from the shape as a params-only one gets its active count, so that the
// total stays above the active count it was given.
func TestLoadTOMLMoEActiveOnly(t *testing.T) {
	c := DefaultCatalog()
	data := `[[arch]]
name = "moe-active"
active_params = 1e5
layers = 2
hidden = 64
heads = 4
intermediate = 128
vocab = 100
max_context = 512
experts = 4
experts_per_token = 1
`
	if err := c.LoadTOMLData([]byte(data), "moe.toml"); err != nil {
		t.Fatal(err)
	}
	a, _ := c.Arch("moe-active")
	total, active := a.EstimateParams()
	if a.ActiveParams != 1e5 || !near(a.Params, 1e5*total/active, 1e-12) {
		t.Errorf("moe arch = %+v: want params %g (active × the shape's total/active)", a, 1e5*total/active)
	}
}

// A new architecture giving params alone gets its active count scaled by
// the shape's ratio, and the product and quotient round: for a dense model
// (or a MoE routing every token to every expert) the ratio is 1, and
// params × total / total came out a unit above params, refused as
// "active_params must be in (0, params]" though the file gave none.
func TestLoadTOMLParamsAloneSurvivesRounding(t *testing.T) {
	shape := `layers = 32
hidden = 4096
heads = 32
intermediate = 11008
vocab = 32001
max_context = 4096
`
	for _, c := range []struct{ name, keys string }{
		{"dense params", "params = 6738415617\n"},
		{"dense active_params", "active_params = 6738415617\n"},
		{"all-expert moe params", "params = 6738415617\nexperts = 2\nexperts_per_token = 2\n"},
		{"all-expert moe active_params", "active_params = 6738415617\nexperts = 2\nexperts_per_token = 2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat := DefaultCatalog()
			data := "[[arch]]\nname = \"odd-vocab\"\n" + c.keys + shape
			if err := cat.LoadTOMLData([]byte(data), "odd.toml"); err != nil {
				t.Fatal(err)
			}
			a, _ := cat.Arch("odd-vocab")
			if a.Params != 6738415617 || a.ActiveParams != 6738415617 {
				t.Errorf("params %v, active_params %v: want both 6738415617", a.Params, a.ActiveParams)
			}
		})
	}
}

// A new architecture may leave head_dim out only when hidden/heads gives
// it. When heads does not divide hidden, the error said "head_dim = 0,
// must be > 0" of a key the file did not have.
func TestLoadTOMLHeadDimNotDerivable(t *testing.T) {
	data := "[[arch]]\nname = \"odd\"\nlayers = 2\nhidden = 100\nheads = 3\nintermediate = 128\nvocab = 100\nmax_context = 512\n"
	err := DefaultCatalog().LoadTOMLData([]byte(data), "odd.toml")
	if err == nil {
		t.Fatal("hidden 100 over 3 heads with no head_dim: accepted")
	}
	for _, want := range []string{"odd.toml", "head_dim", "hidden = 100", "heads = 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "head_dim = 0") {
		t.Errorf("err = %v\nspeaks of a head_dim = 0 the file did not give", err)
	}
}

// Params and active_params differ only for a mixture of experts. A dense
// entry with active_params below params was accepted, and the roofline
// charged compute for a fraction of the weights it reads; an override of
// a dense model's params alone left its old active count behind: one
// count given sets both.
func TestLoadTOMLDenseActiveParamsMustEqualParams(t *testing.T) {
	for _, data := range []string{
		"[[arch]]\nname = \"dense\"\nparams = 7e9\nactive_params = 7e8\nlayers = 32\nhidden = 4096\nheads = 32\nintermediate = 11008\nvocab = 32000\nmax_context = 4096\n",
		"[[arch]]\nname = \"Llama-3.1-8B\"\nparams = 9e9\nactive_params = 8e9\n",
	} {
		err := DefaultCatalog().LoadTOMLData([]byte(data), "dense.toml")
		if err == nil || !strings.Contains(err.Error(), "dense.toml") || !strings.Contains(err.Error(), "active_params") || !strings.Contains(err.Error(), "dense model") {
			t.Errorf("LoadTOMLData(%q) = %v, want an error naming dense.toml, active_params and the dense model", data, err)
		}
	}
	// Both given alike are fine, and either alone is both.
	for _, data := range []string{"params = 9e9\nactive_params = 9e9\n", "params = 9e9\n", "active_params = 9e9\n"} {
		c := DefaultCatalog()
		if err := c.LoadTOMLData([]byte("[[arch]]\nname = \"Llama-3.1-8B\"\n"+data), "dense.toml"); err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if a, _ := c.Arch("Llama-3.1-8B"); a.Params != 9e9 || a.ActiveParams != 9e9 {
			t.Errorf("%q: params %g, active_params %g, want 9e9 both", data, a.Params, a.ActiveParams)
		}
	}
}
