package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A short run's energy is a small fraction of a kWh: the cost factors
// print it as it is, not rounded to a "0.0 kWh" beside a dollar figure
// that is not 0.
func TestSimulatePrintsASmallEnergy(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "in.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,20\n1000000000,100,20\n")
	cfg := basePlan(t, dir, "cont.toml")
	out := filepath.Join(dir, "res")
	text, err := run(t, "simulate", "--trace", src, "--config", cfg, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	var summary []struct {
		Summary struct{ EnergyJoules float64 }
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &summary); err != nil || len(summary) != 1 {
		t.Fatalf("summary.json: %v %s", err, b)
	}
	kwh := summary[0].Summary.EnergyJoules / 3.6e6
	if !(kwh > 0) {
		t.Fatalf("energy %g kWh: want some", kwh)
	}
	if want := fmt.Sprintf("(%.3g kWh × PUE)", kwh); !strings.Contains(text, want) {
		t.Errorf("output lacks %q:\n%s", want, text)
	}
}
