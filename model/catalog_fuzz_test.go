package model

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzLoadTOMLData: a user catalog never panics the loader, and
//   - an error names the file and leaves the catalog unchanged;
//   - on success every entry validates with finite numbers, each key the
//     file gives holds the value of the last entry that gives it, and
//     entries the file does not name are untouched;
//   - the whole catalog written back as TOML reads into an empty catalog
//     unchanged.
//
// Seeds: testdata/fuzz/FuzzLoadTOMLData.
func FuzzLoadTOMLData(f *testing.F) {
	const source = "user.toml"
	f.Fuzz(func(t *testing.T, data []byte) {
		c := DefaultCatalog()
		err := c.LoadTOMLData(data, source)
		if err != nil {
			msg := err.Error()
			if prefix := "model: catalog " + source + ": "; !strings.HasPrefix(msg, prefix) || len(msg) == len(prefix) {
				t.Fatalf("error %q does not start with %q and say what is wrong", msg, prefix)
			}
			if !sameCatalog(c, DefaultCatalog()) {
				t.Fatal("a failed load changed the catalog")
			}
			return
		}
		checkCatalog(t, c)

		// The loader accepted the file, so it decodes; replay its entries.
		var file catalogFile
		if _, err := toml.Decode(string(data), &file); err != nil {
			t.Fatal(err)
		}
		wantArch, wantHW := givenFields(t, file)
		def := DefaultCatalog()
		for k, a := range c.archs {
			want, named := wantArch[k]
			if !named {
				if a != def.archs[k] {
					t.Fatalf("arch %s is not in the file but changed: %+v", a.Name, a)
				}
				continue
			}
			got := reflect.ValueOf(a)
			for field, v := range want {
				if g := got.FieldByName(field).Interface(); g != v {
					t.Fatalf("arch %s: %s = %v, the file says %v", a.Name, field, g, v)
				}
			}
		}
		for k, h := range c.hardware {
			want, named := wantHW[k]
			if !named {
				if !reflect.DeepEqual(h, def.hardware[k]) {
					t.Fatalf("hardware %s is not in the file but changed: %+v", h.Name, h)
				}
				continue
			}
			got := reflect.ValueOf(h)
			for field, v := range want {
				var g any
				if p, ok := strings.CutPrefix(field, "flops."); ok {
					g = h.FLOPS[Precision(p)]
				} else {
					g = got.FieldByName(field).Interface()
				}
				if g != v {
					t.Fatalf("hardware %s: %s = %v, the file says %v", h.Name, field, g, v)
				}
			}
		}
		for k := range wantArch {
			if _, ok := c.archs[k]; !ok {
				t.Fatalf("arch %q from the file is missing", k)
			}
		}
		for k := range wantHW {
			if _, ok := c.hardware[k]; !ok {
				t.Fatalf("hardware %q from the file is missing", k)
			}
		}

		enc := encodeCatalog(t, c)
		back := NewCatalog()
		if err := back.LoadTOMLData(enc, "back.toml"); err != nil {
			t.Fatalf("re-reading the written catalog: %v\n%s", err, enc)
		}
		if !sameCatalog(back, c) {
			t.Fatalf("round trip changed the catalog:\n%s\n%s", enc, encodeCatalog(t, back))
		}
	})
}

// checkCatalog: every entry validates, is stored under its own key, and
// holds only finite numbers and known precisions.
func checkCatalog(t *testing.T, c *Catalog) {
	t.Helper()
	for k, a := range c.archs {
		if err := a.Validate(); err != nil {
			t.Fatalf("accepted an invalid arch: %v", err)
		}
		if k != key(a.Name) || a.Name != strings.TrimSpace(a.Name) {
			t.Fatalf("arch %q stored under %q", a.Name, k)
		}
		for _, v := range []float64{a.Params, a.ActiveParams} {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("arch %s: params %v / %v", a.Name, a.Params, a.ActiveParams)
			}
		}
	}
	for k, h := range c.hardware {
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted invalid hardware: %v", err)
		}
		if k != key(h.Name) || h.Name != strings.TrimSpace(h.Name) {
			t.Fatalf("hardware %q stored under %q", h.Name, k)
		}
		nums := []float64{h.MemoryBytes, h.BandwidthBytesPerSec, h.TDPWatts, h.IdleWatts, h.PricePerHour}
		for p, v := range h.FLOPS {
			if !p.Valid() {
				t.Fatalf("hardware %s: unknown precision %q", h.Name, p)
			}
			nums = append(nums, v)
		}
		for _, v := range nums {
			if math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
				t.Fatalf("hardware %s: a value of %v: %+v", h.Name, v, h)
			}
		}
	}
}

// givenFields replays the file's entries in order: catalog key → Go field
// name (or "flops.<precision>") → the last value given.
func givenFields(t *testing.T, file catalogFile) (archs, hw map[string]map[string]any) {
	t.Helper()
	collect := func(dst map[string]any, e any) {
		v := reflect.ValueOf(e)
		for i := 0; i < v.NumField(); i++ {
			name := v.Type().Field(i).Name
			if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() && name != "Name" {
				dst[name] = f.Elem().Interface()
			}
		}
	}
	archs, hw = map[string]map[string]any{}, map[string]map[string]any{}
	for _, e := range file.Arch {
		k := key(*e.Name)
		if archs[k] == nil {
			archs[k] = map[string]any{}
		}
		collect(archs[k], e)
	}
	for _, e := range file.Hardware {
		k := key(*e.Name)
		if hw[k] == nil {
			hw[k] = map[string]any{}
		}
		collect(hw[k], e)
		seen := map[Precision]string{}
		for name, v := range e.FLOPS {
			p, err := ParsePrecision(name)
			if err != nil {
				t.Fatalf("accepted flops key %q: %v", name, err)
			}
			if prev, ok := seen[p]; ok {
				t.Fatalf("hardware %s: accepted flops keys %q and %q for one precision", *e.Name, prev, name)
			}
			seen[p] = name
			hw[k]["flops."+string(p)] = v
		}
	}
	return archs, hw
}

func sameCatalog(x, y *Catalog) bool {
	return reflect.DeepEqual(x.archs, y.archs) && reflect.DeepEqual(x.hardware, y.hardware)
}

// encodeCatalog writes every entry of c with every key.
func encodeCatalog(t *testing.T, c *Catalog) []byte {
	t.Helper()
	var file catalogFile
	for _, name := range c.ArchNames() {
		a := c.archs[key(name)]
		file.Arch = append(file.Arch, archEntry{
			Name: &a.Name, Params: &a.Params, ActiveParams: &a.ActiveParams, Layers: &a.Layers, Hidden: &a.Hidden,
			Heads: &a.Heads, KVHeads: &a.KVHeads, HeadDim: &a.HeadDim, Intermediate: &a.Intermediate, Vocab: &a.Vocab,
			MaxContext: &a.MaxContext, Experts: &a.Experts, ExpertsPerToken: &a.ExpertsPerToken,
		})
	}
	for _, name := range c.HardwareNames() {
		h := c.hardware[key(name)]
		flops := map[string]float64{}
		for p, v := range h.FLOPS {
			flops[string(p)] = v
		}
		file.Hardware = append(file.Hardware, hardwareEntry{
			Name: &h.Name, MemoryBytes: &h.MemoryBytes, BandwidthBytesPerSec: &h.BandwidthBytesPerSec, FLOPS: flops,
			TDPWatts: &h.TDPWatts, IdleWatts: &h.IdleWatts, PricePerHour: &h.PricePerHour,
		})
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(file); err != nil {
		t.Fatalf("writing the catalog: %v", err)
	}
	return buf.Bytes()
}

// Inputs that were accepted though invalid.
func TestLoadTOMLDataRejects(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"[[arch]]\nname = \"Llama-3.1-8B\"\nparams = inf\nactive_params = inf\n", "params = +Inf"},
		{"[[hardware]]\nname = \"H100-SXM-80G\"\n[hardware.flops]\nbf16 = 1.0e15\nbfloat16 = 2.0e15\n", `flops keys "bf16" and "bfloat16" both set bf16`},
	} {
		c := DefaultCatalog()
		err := c.LoadTOMLData([]byte(tc.data), "user.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "user.toml") {
			t.Errorf("LoadTOMLData(%q) = %v, want an error naming user.toml and %q", tc.data, err, tc.want)
		}
	}
	// One alias per precision is still fine.
	c := DefaultCatalog()
	if err := c.LoadTOMLData([]byte("[[hardware]]\nname = \"L40S\"\n[hardware.flops]\nbfloat16 = 1.0e15\nfp16 = 2.0e15\n"), "user.toml"); err != nil {
		t.Fatal(err)
	}
	if h, _ := c.Hardware("L40S"); h.FLOPS[BF16] != 1e15 || h.FLOPS[FP16] != 2e15 {
		t.Errorf("FLOPS = %v", h.FLOPS)
	}
}
