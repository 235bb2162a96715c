package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// testdata/summary*.json are summary.json files of simulate --out: one
// plan on three requests, a cluster plan (pools and replicas), and a
// static batch that ran out of KV memory.
var summaryFiles = []string{"summary.json", "summary-cluster.json", "summary-oom.json"}

func TestParseSummaryReadsSimulateOutput(t *testing.T) {
	for _, name := range summaryFiles {
		path := filepath.Join("testdata", name)
		in, err := Load(t.Context(), traces.SLO{}, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(in.Runs) != 1 || in.Runs[0].Result == nil {
			t.Fatalf("%s: %d runs", name, len(in.Runs))
		}
		if _, err := Build("t", in); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// editSummary decodes testdata/summary.json into a generic value, lets fn
// change its first result and encodes it again.
func editSummary(t *testing.T, fn func(r map[string]any, s map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs []map[string]any
	if err := json.Unmarshal(data, &rs); err != nil {
		t.Fatal(err)
	}
	fn(rs[0], rs[0]["Summary"].(map[string]any))
	out, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseSummaryRejects(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs []json.RawMessage
	if err := json.Unmarshal(real, &rs); err != nil {
		t.Fatal(err)
	}
	twice, _ := json.Marshal([]json.RawMessage{rs[0], rs[0]})
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty file", nil, "s.json: not a simulate summary.json: empty"},
		{"an object", []byte(`{"version": 1}`), "s.json: not a simulate summary.json: line 1: want a JSON array, got JSON object"},
		{"no results", []byte(`[]`), "s.json: no results"},
		{"null", []byte(`null`), "s.json: not a simulate summary.json: line 1: want a JSON array, got JSON null"},
		{"a null result", []byte(`[null]`), "s.json: [0]: a result without a Summary"},
		{"no summary", []byte(`[{"Name": "a"}]`), "s.json: [0]: a result without a Summary"},
		{"unknown field", []byte(`[{"Name": "a", "Nmae": "b"}]`), `s.json: not a simulate summary.json: line 1: unknown field "Nmae"`},
		{"truncated", real[:len(real)/2], "s.json: not a simulate summary.json: truncated"},
		{"trailing data", append(append([]byte{}, real...), "[]"...), "more data after the JSON value"},
		{"syntax", []byte("[\n{\"Name\": a}]"), "s.json: not a simulate summary.json: line 2: invalid character 'a'"},
		{"wrong type", []byte(strings.Replace(string(real), `"Requests": 3,`, `"Requests": "3",`, 1)),
			"s.json: not a simulate summary.json: line 7: Summary.Requests: want int64, got JSON string"},
		{"negative count", editSummary(t, func(_, s map[string]any) { s["Rejected"] = -1 }), "s.json: [0].Summary: Rejected = -1: want ≥ 0"},
		{"completed > requests", editSummary(t, func(_, s map[string]any) { s["Rejected"] = 1 }),
			"s.json: [0].Summary: 3 Completed + 1 Rejected: want ≤ Requests (3)"},
		{"negative time", editSummary(t, func(_, s map[string]any) { s["Makespan"] = -0.5 }), "s.json: [0].Summary: Makespan = -0.5"},
		{"negative series", editSummary(t, func(_, s map[string]any) {
			s["KV"].(map[string]any)["Series"].([]any)[1].(map[string]any)["T"] = -1
		}), "s.json: [0].Summary: KV.Series[1] = {T: -1, Used: 21}"},
		// The report's per-1M-token cost bars overflowed to +Inf and failed.
		{"a cost beyond reason", editSummary(t, func(r, _ map[string]any) { r["Cost"].(map[string]any)["HardwareUSD"] = 1e308 }),
			"s.json: [0].Cost: HardwareUSD = 1e+308: want at most 1e+30 in magnitude"},
		{"a path for a name", editSummary(t, func(r, _ map[string]any) { r["Name"] = "../p" }), `s.json: [0].Name "../p": want a plan name, not a path`},
		{"a name twice", twice, `s.json: [1].Name "p": [0] has that name too`},
	} {
		_, err := ParseSummary(c.data, "s.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "s.json: ") {
				t.Errorf("%s: %q does not name the file", c.name, line)
			}
		}
	}
	// At the bound the report still draws the cost bars.
	data := editSummary(t, func(r, _ map[string]any) {
		c := r["Cost"].(map[string]any)
		c["HardwareUSD"], c["EnergyUSD"], c["TotalUSD"] = maxUSD, maxUSD, maxUSD
	})
	results, err := ParseSummary(data, "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build("t", &Inputs{Runs: []*Run{resultRun(results[0])}}); err != nil {
		t.Errorf("costs at the bound: %v", err)
	}
	// Load (report and compare) says which file.
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(path, []byte(`[{}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(t.Context(), traces.SLO{}, filepath.Dir(path)); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("Load: %v", err)
	}
}
