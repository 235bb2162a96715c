package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Every summary ParseSummary accepts builds into a report (as
// FuzzParseSummary promises): a P99 TTFT that is huge, or equal across
// plans at a size where adding 1 s changes nothing, must not stop the cost
// plots (which once panicked: "Values must be greater than 0 for a log
// scale", "illegal range").
func TestParetoFigureExtremeLatencies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p99 := range [][2]float64{{1, 1.6e308}, {1e17, 1e17}, {1.7e308, 1.7e308}} {
		t.Run(fmt.Sprint(p99), func(t *testing.T) {
			var rs []map[string]any
			if err := json.Unmarshal(data, &rs); err != nil {
				t.Fatal(err)
			}
			var two []map[string]any
			for i, v := range p99 {
				var r map[string]any
				json.Unmarshal(data, &[]any{&r})
				r["Name"] = fmt.Sprintf("plan%d", i)
				r["Summary"].(map[string]any)["TTFT"].(map[string]any)["P99"] = v
				two = append(two, r)
			}
			enc, _ := json.Marshal(two)
			results, err := ParseSummary(enc, "summary.json")
			if err != nil {
				t.Fatal(err)
			}
			in := &Inputs{}
			for _, r := range results {
				in.Runs = append(in.Runs, resultRun(r))
			}
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Build panicked: %v", p)
				}
			}()
			d, err := Build("t", in)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range d.Sections {
				found = found || s.ID == "pareto-front"
			}
			if !found {
				t.Error("no Pareto front section")
			}
		})
	}
}
