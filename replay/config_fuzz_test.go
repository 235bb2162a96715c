package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/servesim/servesim/internal/jsonfile"
	"github.com/servesim/servesim/traces"
)

// FuzzParseSettings: a settings file, JSON or TOML, never panics the
// loader, and
//   - an error names the file, and leaves the config as it was;
//   - an accepted file sets some fields and keeps the rest, the same on
//     any base config, and each field it sets holds the value the file
//     gives (as a generic decoder reads it);
//   - Validate then rejects field by field (*FieldError), or passes with
//     every number finite;
//   - the result written back as TOML and as JSON reads back unchanged.
//
// Seeds: testdata/fuzz/FuzzParseSettings.
func FuzzParseSettings(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, isTOML bool) {
		path := "user.json"
		if isTOML {
			path = "user.toml"
		}
		a, b := DefaultConfig(), otherConfig()
		ra, rb := a, b
		errA := parseSettings(data, path, &ra)
		errB := parseSettings(data, path, &rb)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("the outcome depends on the base config: %v / %v", errA, errB)
		}
		if errA != nil {
			msg := errA.Error()
			if prefix := "settings " + path + ": "; !strings.HasPrefix(msg, prefix) || len(msg) == len(prefix) {
				t.Fatalf("error %q does not start with %q and say what is wrong", msg, prefix)
			}
			if !sameConfig(ra, a) || !sameConfig(rb, b) {
				t.Fatalf("a failed load changed the config: %+v", ra)
			}
			return
		}
		// Each field is either set by the file (equal on both bases) or
		// kept from its base.
		va, vb := fieldValues(ra), fieldValues(rb)
		wa, wb := fieldValues(a), fieldValues(b)
		for name := range va {
			if !sameValue(va[name], vb[name]) && !(sameValue(va[name], wa[name]) && sameValue(vb[name], wb[name])) {
				t.Fatalf("field %s: %v on the defaults, %v on another base (bases %v, %v)", name, va[name], vb[name], wa[name], wb[name])
			}
		}
		checkGiven(t, data, isTOML, va)
		if err := ra.Validate(); err != nil {
			checkFieldErrors(t, err)
		} else {
			for name, v := range va {
				if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
					t.Fatalf("Validate accepts %s = %v", name, x)
				}
			}
		}

		for _, enc := range encodeSettings(t, ra) {
			back := otherConfig()
			if err := parseSettings(enc.data, enc.path, &back); err != nil {
				t.Fatalf("re-reading the written %s: %v\n%s", enc.path, err, enc.data)
			}
			if !sameConfig(back, ra) {
				t.Fatalf("%s round trip changed the settings:\n%+v\n%+v\n%s", enc.path, ra, back, enc.data)
			}
		}
	})
}

// otherConfig differs from DefaultConfig in every field.
func otherConfig() Config {
	return Config{
		BaseURL: "http://base/v1", Model: "base-model", APIKeyEnv: "BASE_KEY", Endpoint: Completions,
		Timeout: 3 * time.Second, Arrival: Closed, Concurrency: 3, TimeScale: 3, Repeat: 3,
		Temperature: 0.3, IgnoreEOS: true, KeepText: true, SaveRaw: "raw", Trace: "in.csv", Out: "out.csv",
		BlockSize: 3, Text: TextModel{TokensPerByte: 3, Overhead: 33, Prefix: 3}, Salt: 3,
		FlushEvery: 3 * time.Millisecond, MaxIdle: 3, SLO: traces.SLO{TTFT: 3 * time.Second}, MaxTokens: 3, ContinuousUsage: true, SessionWait: true,
	}
}

// fieldValues flattens c into tag → value, TextModel fields included (an
// SLO, written as one string, is one value), leaving out the fields that
// are no setting (tag "-").
func fieldValues(c Config) map[string]any {
	m := map[string]any{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			tag := v.Type().Field(i).Tag.Get("json")
			if tag == "-" {
				continue
			}
			name := prefix + tag
			if fv := v.Field(i); fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeFor[traces.SLO]() {
				walk(name+".", fv)
			} else {
				m[name] = fv.Interface()
			}
		}
	}
	walk("", reflect.ValueOf(c))
	return m
}

func sameValue(x, y any) bool {
	if fx, ok := x.(float64); ok {
		fy := y.(float64)
		return fx == fy || (math.IsNaN(fx) && math.IsNaN(fy))
	}
	return x == y
}

func sameConfig(x, y Config) bool {
	vx, vy := fieldValues(x), fieldValues(y)
	for k := range vx {
		if !sameValue(vx[k], vy[k]) {
			return false
		}
	}
	return true
}

// checkFieldErrors: err joins only *FieldError values naming a Config
// field.
func checkFieldErrors(t *testing.T, err error) {
	t.Helper()
	for _, e := range jsonfile.Lines(err) {
		var fe *FieldError
		if !errors.As(e, &fe) || fe.Msg == "" {
			t.Fatalf("Validate error %q is not a *FieldError with a message", e)
		}
		if _, ok := reflect.TypeOf(Config{}).FieldByName(fe.Field); !ok {
			t.Fatalf("Validate error %q names no Config field", e)
		}
	}
}

// checkGiven decodes data without the settings types and checks that each
// key naming a field holds in got (fieldValues of the result) what the file
// says. A key with a case variant in the same table is skipped: the JSON
// decoder matches names case-insensitively and the last one wins.
func checkGiven(t *testing.T, data []byte, isTOML bool, got map[string]any) {
	t.Helper()
	var generic map[string]any
	if isTOML {
		if _, err := toml.Decode(string(data), &generic); err != nil {
			t.Fatalf("settings accepted, generic TOML decode fails: %v", err)
		}
	} else {
		if !json.Valid(data) {
			t.Fatalf("accepted a file that is not valid JSON: %q", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&generic); err != nil {
			t.Fatalf("settings accepted, generic JSON decode fails: %v", err)
		}
	}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if ambiguous(m, k) {
				continue
			}
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			field, ok := got[prefix+k]
			if !ok || v == nil { // JSON null keeps the field
				continue
			}
			if !givenEqual(v, field) {
				t.Fatalf("key %s%s = %#v in the file, %#v in the config", prefix, k, v, field)
			}
		}
	}
	walk("", generic)
}

func ambiguous(m map[string]any, key string) bool {
	for k := range m {
		if k != key && strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// givenEqual compares a generically decoded value with a Config field.
func givenEqual(v, field any) bool {
	if n, ok := v.(json.Number); ok {
		v = string(n)
		if _, isStr := field.(string); isStr {
			return false
		}
	}
	switch f := field.(type) {
	case traces.SLO:
		var slo traces.SLO
		s, ok := v.(string)
		return ok && slo.UnmarshalText([]byte(s)) == nil && slo == f
	case time.Duration:
		s, ok := v.(string)
		d, err := time.ParseDuration(s)
		return ok && err == nil && d == f
	case float64:
		var x float64
		switch v := v.(type) {
		case float64:
			x = v
		case int64:
			x = float64(v)
		case string:
			var err error
			if x, err = strconv.ParseFloat(v, 64); err != nil {
				return false
			}
		default:
			return false
		}
		return sameValue(x, f)
	case int, uint64:
		want, ok1 := new(big.Rat).SetString(fmt.Sprint(v))
		have, ok2 := new(big.Rat).SetString(fmt.Sprint(f))
		return ok1 && ok2 && want.Cmp(have) == 0
	}
	rf := reflect.ValueOf(field)
	switch rf.Kind() {
	case reflect.String:
		s, ok := v.(string)
		return ok && s == rf.String()
	case reflect.Bool:
		b, ok := v.(bool)
		return ok && b == rf.Bool()
	}
	return false
}

type encodedSettings struct {
	path string
	data []byte
}

// encodeSettings writes every field of c as a TOML and a JSON settings file,
// each where the format can hold the values: TOML integers stop at 2^63,
// JSON has no NaN or infinity.
func encodeSettings(t *testing.T, c Config) []encodedSettings {
	t.Helper()
	m := map[string]any{}
	finite := true
	for k, v := range fieldValues(c) {
		switch v := v.(type) {
		case time.Duration:
			m[k] = v.String()
			continue
		case traces.SLO:
			m[k] = v.String()
			continue
		case float64:
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
		if name, ok := strings.CutPrefix(k, "text_model."); ok {
			if m["text_model"] == nil {
				m["text_model"] = map[string]any{}
			}
			m["text_model"].(map[string]any)[name] = v
		} else {
			m[k] = v
		}
	}
	var out []encodedSettings
	if c.Salt <= math.MaxInt64 {
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(m); err != nil {
			t.Fatalf("writing TOML: %v", err)
		}
		out = append(out, encodedSettings{"back.toml", buf.Bytes()})
	}
	if finite {
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("writing JSON: %v", err)
		}
		out = append(out, encodedSettings{"back.json", js})
	}
	return out
}

// Inputs that were accepted though invalid.
func TestParseSettingsRejects(t *testing.T) {
	for _, tc := range []struct{ path, data, want string }{
		{"s.json", `{"model":"a"}{"model":"b"}`, "after the settings object, which ends at byte 13"},
		// JSON errors name their key, and a key given twice is refused, as in TOML.
		{"s.json", `{"timeout":"5"}`, `"timeout": time: missing unit in duration "5"`},
		{"s.json", "{\"concurrency\": \"4\"}", `"concurrency": want an integer, got JSON string`},
		{"s.json", `{"model":"a","Model":"b"}`, `"Model": given twice (also as "model")`},
		{"s.json", `{"modle":"a"}`, `unknown key "modle"`},
		// And the key's line, as TOML's errors do.
		{"s.json", "{\"model\": \"m\",\n\n\"modle\": \"a\"}", `s.json: line 3: unknown key "modle"`},
		{"s.json", "{\"model\": \"m\",\n\"text_model\": {\"overhead\": 1,\n\"tokens_per_bite\": 1}}", `s.json: line 3: unknown key "text_model.tokens_per_bite"`},
		{"s.json", "{\"model\": \"m\",\n\"concurrency\": \"4\"}", `s.json: line 2: "concurrency": want an integer`},
		{"s.json", "{\"model\": \"a\",\n\"Model\": \"b\"}", `s.json: line 2: "Model": given twice`},
		{"s.json", `["model"]`, "want a JSON object, got ["},
		{"s.json", ``, "want a JSON object, got nothing"},
		// TOML errors give the key's line, as a plan's do.
		{"s.toml", "model = \"m\"\n\nmodle = \"a\"\n", `s.toml: line 3: unknown key "modle"`},
		{"s.toml", "model = \"a\"\nModel = \"b\"\n", `s.toml: line 2: "Model": given twice`},
		// And a value of the wrong type is worded as in JSON.
		{"s.toml", "endpoint = 1\n", `s.toml: line 1: "endpoint": want "chat" or "completions", got TOML integer 1`},
		{"s.toml", "model = \"m\"\nConcurrency = \"4\"\n", `s.toml: line 2: "Concurrency": want an integer, got TOML string`},
		{"s.toml", "[text_model]\noverhead = \"x\"\n", `s.toml: line 2: "text_model.overhead": want a number, got TOML string`},
		{"s.toml", "text_model = 1\n", `s.toml: line 1: "text_model": want a table, got TOML integer 1`},
		{"s.json", `{"text_model": 1}`, `s.json: line 1: "text_model": want an object, got JSON number`},
		{"s.toml", "ignore_eos = [1]\n", `s.toml: line 1: "ignore_eos": want true or false, got TOML array`},
		// Text settings take only a TOML string, and the salt only an integer.
		{"s.toml", "timeout = 5\n", `s.toml: line 1: "timeout": want a duration such as "30s", got TOML integer 5`},
		{"s.toml", "model = \"m\"\nflush_every = true\n", `s.toml: line 2: "flush_every": want a duration such as "30s", got TOML boolean true`},
		{"s.toml", "slo = 1\n", `s.toml: line 1: "slo": want limits such as "ttft=2s,tpot=50ms,e2e=30s", got TOML integer 1`},
		{"s.toml", "prompt_salt = true\n", `s.toml: line 1: "prompt_salt": want an integer ≥ 0, got TOML boolean true`},
		{"s.toml", "prompt_salt = 1.5\n", `s.toml: line 1: "prompt_salt": want an integer ≥ 0, got TOML float 1.5`},
		// A value that fits but that the setting's own decoder refuses is
		// worded as in JSON too, not with the decoder's "toml: (last key …)".
		{"s.toml", "model = \"m\"\ntimeout = \"5\"\n", `settings s.toml: line 2: "timeout": time: missing unit in duration "5"`},
		{"s.toml", "slo = \"ttft=x\"\n", `settings s.toml: line 1: "slo": slo: ttft="x": want a positive duration`},
		{"s.toml", "prompt_salt = -1\n", `settings s.toml: line 1: "prompt_salt": want an integer ≥ 0, got TOML integer -1`},
	} {
		cfg := DefaultConfig()
		err := parseSettings([]byte(tc.data), tc.path, &cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s %q: error %v, want one naming %s and %q", tc.path, tc.data, err, tc.path, tc.want)
		}
	}
	cfg := DefaultConfig()
	if err := parseSettings([]byte("prompt_salt = 9223372036854775807\n"), "s.toml", &cfg); err != nil || cfg.Salt != math.MaxInt64 {
		t.Errorf("largest TOML salt: %v, salt %d", err, cfg.Salt)
	}
	for _, o := range []float64{math.NaN(), math.Inf(1)} {
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Model = "http://h/v1", "m"
		cfg.Text = TextModel{TokensPerByte: 1, Overhead: o}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Overhead") {
			t.Errorf("overhead %v: error %v, want one naming Overhead", o, err)
		}
	}
}
