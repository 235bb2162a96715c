package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdata/verify.json and verify-unmeasured.json are verify.json files
// written by servesim verify against the stub engine (paths shortened):
// two measured candidates, and two the engine command failed for.
func TestLoadResultReadsVerifyJSON(t *testing.T) {
	for _, name := range []string{"verify.json", "verify-unmeasured.json"} {
		res, err := LoadResult(filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Version != ResultVersion || len(res.Candidates) != 2 || res.Requests != 20 {
			t.Errorf("%s: version %d, %d candidates, %d requests", name, res.Version, len(res.Candidates), res.Requests)
		}
	}
	// The build that wrote it reads back; files written before it was
	// recorded (the testdata) read without it.
	data := edit(t, func(m map[string]any) { m["tool_version"] = "v9.9.9" })
	if res, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("with tool_version: %v", err)
	} else if res.ToolVersion != "v9.9.9" {
		t.Errorf("tool_version %q, want v9.9.9", res.ToolVersion)
	}
	if _, err := LoadResult(filepath.Join("testdata", "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: %v", err)
	}
}

// edit decodes testdata/verify.json into a generic value, lets fn change
// it and encodes it again.
func edit(t *testing.T, fn func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "verify.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func cand(m map[string]any, i int) map[string]any {
	return m["candidates"].([]any)[i].(map[string]any)
}

func row(m map[string]any, i, j int) map[string]any {
	return cand(m, i)["rows"].([]any)[j].(map[string]any)
}

func TestParseResultRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty object", []byte(`{}`), "v.json: version 0, want 1: not a servesim verify result"},
		{"empty file", nil, "v.json: not a servesim verify result: empty"},
		{"not an object", []byte(`[1, 2]`), "v.json: not a servesim verify result: line 1: want a JSON object, got JSON array"},
		{"truncated", []byte(`{"version": 1, "candidates": [`), "v.json: not a servesim verify result: truncated"},
		{"syntax", []byte("{\n\"version\": 1,\n\"requests\": x}"), "v.json: not a servesim verify result: line 3: invalid character 'x'"},
		{"wrong type", []byte("{\n  \"version\": \"1\"\n}"), "line 2: version: want int, got JSON string"},
		{"unknown field", []byte(`{"version": 1, "verison": 1}`), `unknown field "verison"`},
		{"trailing data", []byte(`{"version": 1} {}`), "line 1: more data after the JSON value"},
		{"another version", edit(t, func(m map[string]any) { m["version"] = 2 }), "v.json: version 2, want 1"},
		{"another version's fields", []byte(`{"version": 2, "new": true}`), "v.json: version 2, want 1"},
		{"no candidates", edit(t, func(m map[string]any) { m["candidates"] = []any{} }), "v.json: candidates: none"},
		{"no requests", edit(t, func(m map[string]any) { m["requests"] = 0 }), "requests = 0: want ≥ 1"},
		{"negative tolerance", edit(t, func(m map[string]any) { m["tolerances"].(map[string]any)["ttft"] = -0.1 }), "want fractions ≥ 0"},
		{"rank 0", edit(t, func(m map[string]any) { cand(m, 0)["rank"] = 0 }), "candidates[0].rank = 0: want ≥ 1"},
		{"duplicate rank", edit(t, func(m map[string]any) { cand(m, 1)["rank"] = 1 }), "candidates[1].rank = 1: candidates[0] has that rank too"},
		{"negative index", edit(t, func(m map[string]any) { cand(m, 1)["index"] = -1 }), "candidates[1].index = -1"},
		{"no status", edit(t, func(m map[string]any) { cand(m, 0)["status"] = "" }), "candidates[0].status: empty"},
		{"rate 0", edit(t, func(m map[string]any) { cand(m, 0)["rate_scale"] = 0 }), "candidates[0].rate_scale = 0"},
		{"negative count", edit(t, func(m map[string]any) { cand(m, 0)["measured"].(map[string]any)["completed"] = -3 }),
			"candidates[0].measured: requests 20, completed -3, output_tokens 160: want counts ≥ 0"},
		{"completed > requests", edit(t, func(m map[string]any) { cand(m, 1)["predicted"].(map[string]any)["completed"] = 21 }),
			"candidates[1].predicted: completed = 21: want ≤ requests (20)"},
		{"rows out of order", edit(t, func(m map[string]any) { row(m, 0, 1)["metric"] = MetricTTFTP99 }),
			`candidates[0].rows[1].metric = "ttft_p99_s": want "ttft_mean_s"`},
		{"too many rows", edit(t, func(m map[string]any) {
			c := cand(m, 0)
			c["rows"] = append(c["rows"].([]any), row(m, 0, 0))
		}), "candidates[0].rows: 11 rows, want at most 10"},
		{"verdict", edit(t, func(m map[string]any) { row(m, 0, 0)["pass"] = true }), "candidates[0].rows[0]: pass = true, but |rel_error|"},
		{"verdict without a tolerance", edit(t, func(m map[string]any) { row(m, 0, 9)["pass"] = true }), "candidates[0].rows[9]: pass = true without"},
		{"verdict missing", edit(t, func(m map[string]any) { row(m, 0, 0)["pass"] = nil }), "candidates[0].rows[0]: pass = null, but rel_error"},
		{"rel_error", edit(t, func(m map[string]any) { row(m, 0, 0)["rel_error"] = 0.5 }), "candidates[0].rows[0]: rel_error = 0.5: want (predicted − measured) / measured = -0.54"},
		{"rel_error without values", edit(t, func(m map[string]any) { row(m, 0, 9)["rel_error"] = 0.5 }), "candidates[0].rows[9]: rel_error = 0.5 without"},
		{"failures", edit(t, func(m map[string]any) { m["tolerance_failures"] = 0 }), "tolerance_failures = 0: the measured candidates' rows fail 18"},
		{"incomplete", edit(t, func(m map[string]any) { m["incomplete"] = -1 }), `incomplete = -1: want 0, the candidates with a status other than "ok"`},
		{"tau", edit(t, func(m map[string]any) { m["ranking"].(map[string]any)["kendall_tau_sweep_rank"] = 1.5 }), "ranking.kendall_tau_sweep_rank = 1.5"},
		{"consistency", edit(t, func(m map[string]any) { m["consistency"].(map[string]any)["differ"] = 21 }), "consistency: 21 of 20 requests differ"},
	} {
		_, err := ParseResult(c.data, "v.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "v.json: ") {
				t.Errorf("%s: %q does not name the file", c.name, line)
			}
		}
	}
	// Every problem is said, each on its own line.
	data := edit(t, func(m map[string]any) { cand(m, 0)["rank"], cand(m, 1)["status"] = -1, "" })
	if _, err := ParseResult(data, "v.json"); err == nil || strings.Count(err.Error(), "\n") < 2 {
		t.Errorf("two problems (and the incomplete count): %v", err)
	}
}

// A mistyped key in verify.json is named with its line, in every object
// that is a struct's.
func TestParseResultUnknownKeyNamesLine(t *testing.T) {
	data, err := os.ReadFile("testdata/verify.json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	tried := 0
	for i, line := range lines {
		if !strings.HasSuffix(line, "{") {
			continue
		}
		edited := slices.Clone(lines)
		edited[i] += ` "zz_typo": 1,`
		_, err := ParseResult([]byte(strings.Join(edited, "\n")), "v.json")
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
