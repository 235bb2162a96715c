package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func testProfile() *Profile {
	md := 0.031
	c := func(v float64) Coef { return Coef{Value: v, Lo: v * 0.9, Hi: v * 1.1, Status: StatusFit} }
	return &Profile{
		Version: ProfileVersion, Engine: "vllm", EngineVersion: "0.8.5",
		EngineArgs: []string{"--max-num-seqs", "64"}, Model: "Llama-3.1-8B", Precision: "bf16",
		Device: "H100-SXM-80G", TensorParallel: 1, BlockSize: 16,
		Step: StepCoefficients{C0: c(4e-3), Cp: c(6e-5), Ca: c(2e-9), Cd: c(8e-5), Ck: c(1.5e-7),
			Crp: Coef{Status: StatusBound}, Crd: Coef{Status: StatusBound}, Cr: Coef{Status: StatusBound}, Cq: Coef{Status: StatusBound}, Dense: DenseOff()},
		Quality:   FitQuality{N: 2907, R2: 0.998, RMSE: 0.0011, MdAPE: 0.012, HeldOutMdAPE: &md, NHeldOut: 900},
		KV:        &KVCapacity{MaxConcurrentTokens: 453_000, Blocks: 28_312},
		Power:     &PowerFit{Idle: c(70), Dynamic: c(550), Quality: FitQuality{N: 500, R2: 0.99, RMSE: 5, MdAPE: 0.01}},
		Admission: &Admission{Delay: 0.004, P10: 0.002, P90: 0.009, N: 14, SlotSteps: 3, NSlot: 6, Lock: true, Latency: 0.0015},
		CreatedAt: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		Traces:    []TraceRef{{Path: "runs/a.parquet", SHA256: strings.Repeat("ab", 32)}},
		Lineage:   []LineageEntry{{Relation: "parent", Path: "profiles/old.json", SHA256: strings.Repeat("01", 32)}},
	}
}

func TestProfileRoundTripAndGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	p := testProfile()
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, p)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("Save left %d files in the directory", len(ents))
	}
	// The golden file pins the field order.
	b, _ := os.ReadFile(path)
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, golden) {
		t.Errorf("saved profile differs from testdata/profile_v1.json:\n%s", b)
	}

	// A profile written before the lock model loads without it.
	old := bytes.Replace(golden, []byte(`,
    "slot_steps": 3,
    "n_slot": 6,
    "lock": true,
    "latency_s": 0.0015`), nil, 1)
	if o, err := ParseProfile(old); err != nil {
		t.Errorf("profile without the lock model: %v", err)
	} else if a := o.Admission; a == nil || a.Lock || a.Delay != 0.004 {
		t.Errorf("profile without the lock model: admission %+v", a)
	}

	// A profile without optional measurements stores nulls; with no
	// held-out check there is no held-out error and nothing held out.
	p.KV, p.Power, p.Admission, p.Quality.HeldOutMdAPE, p.Quality.NHeldOut = nil, nil, nil, nil, 0
	b, _ = p.Marshal()
	for _, s := range []string{`"kv": null`, `"power": null`, `"admission": null`, `"held_out_mdape": null`, `"n_held_out": 0`} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("marshal lacks %s", s)
		}
	}
	if _, err := ParseProfile(b); err != nil {
		t.Errorf("parse of nulls: %v", err)
	}

	// The lineage helper hashes the parent file.
	if err := p.AddLineage("refit", path); err != nil {
		t.Fatal(err)
	}
	ref, err := NewTraceRef(path)
	if err != nil || p.Lineage[1].SHA256 != ref.SHA256 || len(ref.SHA256) != 64 {
		t.Errorf("lineage %+v ref %+v err %v", p.Lineage, ref, err)
	}
}

func TestLoadProfileRejects(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown top-level field", `"engine": "vllm",`, `"engine": "vllm", "engin": "x",`, `line 3: unknown field "engin"`},
		{"unknown nested field", `"c0": {`, `"c0": {"valu": 1,`, `line 15: unknown field "valu"`},
		{"missing coefficient", `"ca": {`, `"ca_old": {`, `line 27: unknown field "ca_old"`},
		{"missing value", `"value": 0.004,`, ``, `step.c0.value`},
		{"bad status", `"status": "fit"`, `"status": "guess"`, `status = "guess"`},
		{"negative coefficient", `"value": 0.004,`, `"value": -0.004,`, `step.c0.value = -0.004`},
		{"bad precision", `"bf16"`, `"bf17"`, `precision`},
		{"bad version", `"version": 1`, `"version": 2`, `version = 2`},
		{"bad hash", strings.Repeat("ab", 32), "abc", `traces[0].sha256`},
		{"negative slots", `"sha256": "` + strings.Repeat("ab", 32) + `"`, `"sha256": "` + strings.Repeat("ab", 32) + `", "kind": "verify", "slots": -2`, `traces[0].slots = -2`},
		{"negative admission delay", `"delay_s": 0.004`, `"delay_s": -0.004`, `admission.delay_s = -0.004: want a finite number ≥ 0`},
		{"admission without probes", `"n": 14`, `"n": 0`, `admission.n = 0: want ≥ 1`},
		{"admission delay past the simulator's", `"delay_s": 0.004`, `"delay_s": 5000`, `admission.delay_s = 5000: want ≤ 3600`},
		{"admission delay outside its spread", `"delay_s": 0.004`, `"delay_s": 5`, `admission.delay_s = 5: want within p10_s 0.002 to p90_s 0.009`},
		// Each bad admission field is named, with what it wants.
		{"negative admission latency", `"latency_s": 0.0015`, `"latency_s": -0.0015`, `admission.latency_s = -0.0015: want a finite number ≥ 0`},
		{"negative slot steps", `"slot_steps": 3`, `"slot_steps": -3`, `admission.slot_steps = -3: want a finite number ≥ 0`},
		{"negative slot waits", `"n_slot": 6`, `"n_slot": -1`, `admission.n_slot = -1: want ≥ 0`},
		{"negative admission p10", `"p10_s": 0.002`, `"p10_s": -0.002`, `admission.p10_s = -0.002: want a finite number ≥ 0`},
		{"admission p90 under p10", `"p90_s": 0.009`, `"p90_s": 0.001`, `admission.p90_s = 0.001: want ≥ p10_s 0.002`},
		{"admission latency past the simulator's", `"latency_s": 0.0015`, `"latency_s": 5000`, `admission.latency_s = 5000: want ≤ 3600`},
		{"trailing data", "}\n", "}\n{}", `more data after the JSON value`},
		{"method window", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 0, "relative": true, "no_trim": false, "linear": false, "without": [], "held_out_folds": 4},`, `method.window = 0`},
		{"method folds", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 8, "relative": true, "no_trim": false, "linear": false, "without": [], "held_out_folds": 1},`, `method.held_out_folds = 1`},
		{"kv blocks without tokens", `"max_concurrent_tokens": 453000`, `"max_concurrent_tokens": 0`, `kv.max_concurrent_tokens = 0 with kv.blocks = 28312`},
		{"kv negative tokens", `"max_concurrent_tokens": 453000`, `"max_concurrent_tokens": -5`, `kv.max_concurrent_tokens = -5: want ≥ 0`},
		{"kv negative blocks", `"blocks": 28312`, `"blocks": -1`, `kv.blocks = -1: want ≥ 0`},
		{"kv past the simulator's blocks", `"max_concurrent_tokens": 453000`, `"max_concurrent_tokens": 2147483648`, `kv.max_concurrent_tokens = 2147483648: want ≤ 2147483647`},
		{"kv blocks past the simulator's", `"blocks": 28312`, `"blocks": 2147483648`, `kv.blocks = 2147483648: want ≤ 2147483647`},
		{"kv of nothing", `"max_concurrent_tokens": 453000,
    "blocks": 28312`, `"max_concurrent_tokens": 0,
    "blocks": 0`, `kv.max_concurrent_tokens = 0 with kv.blocks = 0`},
		{"method collinearity", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 8, "relative": true, "no_trim": false, "linear": false, "without": [], "held_out_folds": 4, "collinearity": 1},`, `method.collinearity = 1`},
		{"method confidence", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 8, "relative": true, "no_trim": false, "linear": false, "without": [], "held_out_folds": 4, "confidence": -0.5},`, `method.confidence = -0.5`},
		{"method weights", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 8, "relative": true, "no_trim": false, "linear": false, "without": [], "held_out_folds": 4, "weights": "equal"},`, `method.weights = "equal"`},
		{"method term", `"engine": "vllm",`, `"engine": "vllm", "method": {"window": 8, "relative": true, "no_trim": false, "linear": false, "without": ["cz"], "held_out_folds": 4},`, `method.without: `},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Replace(g, tc.from, tc.to, 1)
			if s == g {
				t.Fatalf("replacement %q not found", tc.from)
			}
			if tc.name == "trailing data" {
				s = strings.TrimSuffix(g, "\n") + "\n{}"
			}
			_, err := ParseProfile([]byte(s))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A missing coefficient (removed key) is named.
	var m map[string]any
	if err := json.Unmarshal([]byte(g), &m); err != nil {
		t.Fatal(err)
	}
	delete(m["step"].(map[string]any), "ck")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), "step.ck") {
		t.Errorf("missing ck: error %v", err)
	}
	if _, err := LoadProfile(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("missing file: no error")
	}
	p := testProfile()
	p.Step.Cp.Hi = p.Step.Cp.Value / 2
	if err := p.Save(filepath.Join(t.TempDir(), "x.json")); err == nil || !strings.Contains(err.Error(), "step.cp") {
		t.Errorf("invalid interval saved: %v", err)
	}
}

// A profile written before the resident terms existed loads with them off.
func TestProfileWithoutResidentTerms(t *testing.T) {
	data, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(data, []byte(`    "crp": {`))
	end := bytes.Index(data, []byte(`  "quality"`))
	if start < 0 || end < start {
		t.Fatal("golden profile has no crp block")
	}
	old := append(append([]byte{}, data[:start]...), data[end:]...)
	old = bytes.Replace(old, []byte("    },\n  \"quality\""), []byte("    }\n  },\n  \"quality\""), 1)
	p, err := ParseProfile(old)
	if err != nil {
		t.Fatalf("%v\n%s", err, old)
	}
	if p.Step.Crp.Status != StatusOff || p.Step.Crd.Status != StatusOff || p.Step.Crd.Value != 0 || p.Step.Ck.Value != 1.5e-7 {
		t.Errorf("step %+v", p.Step)
	}
}

// The dense curve: a profile without it (written before it existed)
// loads with every point off; a wrong number of points, or a point at the
// wrong token count, is refused by name.
func TestLoadProfileDenseCurve(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(step map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(golden, &m); err != nil {
			t.Fatal(err)
		}
		f(m["step"].(map[string]any))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	p, err := ParseProfile(edit(func(s map[string]any) { delete(s, "dense") }))
	if err != nil {
		t.Fatalf("profile without a dense curve: %v", err)
	}
	if p.Step.Dense != DenseOff() || len(p.Step.Curve().Tokens) != 0 {
		t.Errorf("profile without a dense curve: %+v, want every point off", p.Step.Dense)
	}
	for name, tc := range map[string]struct {
		f    func(step map[string]any)
		want string
	}{
		"three points": {func(s map[string]any) { s["dense"] = s["dense"].([]any)[:3] }, "step.dense: want an array of 14 points"},
		"wrong tokens": {func(s map[string]any) { s["dense"].([]any)[2].(map[string]any)["tokens"] = 5 }, "step.dense[2].tokens = 5, want 4"},
		"no status":    {func(s map[string]any) { delete(s["dense"].([]any)[1].(map[string]any), "status") }, "step.dense[1].status"},
	} {
		if _, err := ParseProfile(edit(tc.f)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
}

// A coefficient that is off, unexcited or held at 0 has value 0: a value
// there would still reach the simulator's step time (the linear terms do
// not look at the status), so such a profile is refused by name.
func TestLoadProfileRejectsValueOfZeroStatus(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []string{StatusOff, StatusUnexcited, StatusBound} {
		var m map[string]any
		if err := json.Unmarshal(golden, &m); err != nil {
			t.Fatal(err)
		}
		m["step"].(map[string]any)["ca"] = map[string]any{"value": 2e-9, "lo": 2e-9, "hi": 2e-9, "status": status}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseProfile(b)
		if err == nil {
			t.Errorf("ca %s with value 2e-9: accepted; the step time then charges ca = %g", status, p.Step.Ca.Value)
		} else if !strings.Contains(err.Error(), "step.ca") {
			t.Errorf("ca %s with value 2e-9: error %v, want it to name step.ca", status, err)
		}
	}
}

// encoding/json matches keys case-insensitively: a key spelled otherwise
// than documented would load silently (and, beside the documented one,
// the later would win). Such a profile is refused, naming the key and the
// spelling expected.
func TestLoadProfileRejectsKeyCase(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ from, to, key, want string }{
		{`"model":`, `"Model":`, `"Model"`, `"model"`},
		{`"r2":`, `"R2":`, `"quality.R2"`, `"r2"`},
		{`"c0": {`, `"C0": {`, `"step.C0"`, `"c0"`},
		{`"tokens": 4,`, `"Tokens": 4,`, `"step.dense[2].Tokens"`, `"tokens"`},
		{`"sha256": "abab`, `"SHA256": "abab`, `"traces[0].SHA256"`, `"sha256"`},
		{`"model": "Llama-3.1-8B",`, `"model": "Llama-3.1-8B", "MODEL": "other",`, `"MODEL"`, `"model"`},
	} {
		s := strings.Replace(g, tc.from, tc.to, 1)
		if s == g {
			t.Fatalf("replacement %q not found", tc.from)
		}
		p, err := ParseProfile([]byte(s))
		if err == nil {
			t.Errorf("%s: accepted (model %q, R² %g)", tc.to, p.Model, p.Quality.R2)
		} else if !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to name %s and %s", tc.to, err, tc.key, tc.want)
		}
	}
}

// A key given twice, at any depth, is refused with its path: encoding/json
// would keep the later value without a word.
func TestLoadProfileRejectsDuplicateKey(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ from, to, key string }{
		{`"model": "Llama-3.1-8B",`, `"model": "Llama-3.1-8B", "model": "other",`, `"model"`},
		{`"r2":`, `"r2": 0.5, "r2":`, `"quality.r2"`},
		{`"tokens": 4,`, `"tokens": 4, "tokens": 5,`, `"step.dense[2].tokens"`},
	} {
		s := strings.Replace(g, tc.from, tc.to, 1)
		if s == g {
			t.Fatalf("replacement %q not found", tc.from)
		}
		if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: error %v, want one naming %s given twice", tc.to, err, tc.key)
		}
	}
}

// A profile that does not parse says on which line, as the other JSON
// files servesim reads back do: a hand-edited profile runs to 150 lines.
func TestLoadProfileSyntaxErrorNamesLine(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	for _, tc := range []struct{ from, to, want string }{
		{`"engine": "vllm",`, `"engine": "vllm"`, "line 4:"},
		{`"tensor_parallel": 1,`, `"tensor_parallel": "1",`, "line 12: tensor_parallel"},
		// time.Time's own errors name neither the key nor the line.
		{`"created_at": "2025-06-01T12:00:00Z",`, `"created_at": "2025-06-01 12:00",`, `line 215: created_at = "2025-06-01 12:00": want an RFC 3339 time`},
		{`"created_at": "2025-06-01T12:00:00Z",`, `"created_at": 1748779200,`, `line 215: created_at = 1748779200: want an RFC 3339 time`},
	} {
		s := strings.Replace(g, tc.from, tc.to, 1)
		if s == g {
			t.Fatalf("replacement %q not found", tc.from)
		}
		if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.to, err, tc.want)
		}
	}
}

// A mistyped key in a hand-edited profile is named with its line, in
// every object of the profile.
func TestLoadProfileUnknownKeyNamesLine(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(golden), "\n")
	tried := 0
	for i, line := range lines {
		if !strings.HasSuffix(line, "{") {
			continue
		}
		edited := slices.Clone(lines)
		edited[i] += ` "zz_typo": 1,`
		_, err := ParseProfile([]byte(strings.Join(edited, "\n")))
		if err == nil || !strings.Contains(err.Error(), `unknown field "zz_typo"`) {
			continue // a map's key, not a field
		}
		tried++
		if want := fmt.Sprintf(`line %d: unknown field "zz_typo"`, i+1); !strings.Contains(err.Error(), want) {
			t.Errorf("key added on line %d: error %v, want it to contain %q", i+1, err, want)
		}
	}
	if tried < 10 {
		t.Errorf("only %d objects took the key as a field", tried)
	}
}

// A trace's kind decides how a refit replays it (warm-up and slot resets
// are not fitted): a kind no version wrote, a typo or a renamed one,
// would be fitted as a measured run without a word.
func TestLoadProfileRejectsUnknownTraceKind(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	sha := `"sha256": "` + strings.Repeat("ab", 32) + `"`
	for _, kind := range []string{KindWarmup, KindReset, KindPrefill, KindDecode, KindMixed, KindMemory, KindAdmission, KindVerify} {
		s := strings.Replace(string(golden), sha, sha+`, "kind": "`+kind+`"`, 1)
		if _, err := ParseProfile([]byte(s)); err != nil {
			t.Errorf("kind %q: %v", kind, err)
		}
	}
	s := strings.Replace(string(golden), sha, sha+`, "kind": "warmpu"`, 1)
	if _, err := ParseProfile([]byte(s)); err == nil || !strings.Contains(err.Error(), `traces[0].kind = "warmpu"`) {
		t.Errorf("kind \"warmpu\": error %v, want one naming traces[0].kind", err)
	}
}

// A power fit's devices survive a save and load.
func TestProfilePowerDevicesRoundTrip(t *testing.T) {
	p := testProfile()
	p.Power.Devices = []PowerDevice{{Index: 2, UUID: "GPU-aaaa", Name: "NVIDIA H100 80GB HBM3"}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseProfile(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Power.Devices) != 1 || q.Power.Devices[0] != p.Power.Devices[0] {
		t.Errorf("devices %+v, want %+v", q.Power.Devices, p.Power.Devices)
	}
}

// A power device's NVML index is ≥ 0, as gpu.csv records it: a negative
// one is refused, named.
func TestProfileRefusesNegativePowerDevice(t *testing.T) {
	p := testProfile()
	p.Power.Devices = []PowerDevice{{Index: 0}, {Index: -1}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseProfile(data); err == nil || !strings.Contains(err.Error(), "power.devices[1].index = -1: want an NVML index ≥ 0") {
		t.Errorf("error %v, want one naming power.devices[1].index", err)
	}
}
