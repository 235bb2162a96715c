package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// A stretch line has the same keys as a step line (decisions.go), its
// resident_tokens those its first step attends over, as a step line of
// that step would say.
func TestDecisionLogStretchHasStepKeys(t *testing.T) {
	reqs := synthWorkload(3, 50, 2)
	lines := func(noSkip bool) []map[string]any {
		var log bytes.Buffer
		cfg := Config{Policy: policy(t, Continuous), BlockSize: 16, TotalBlocks: 300, Step: realTimer, Devices: 1, NoSkip: noSkip, Decisions: &log}
		mustRun(t, cfg, reqs)
		var out []map[string]any
		sc := bufio.NewScanner(&log)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%v: %s", err, sc.Text())
			}
			out = append(out, l)
		}
		return out
	}
	stepped := map[float64]float64{} // t_ns → resident_tokens of each stepped line
	for _, l := range lines(true) {
		stepped[l["t_ns"].(float64)] = l["resident_tokens"].(float64)
	}
	var stepKeys []string
	stretches := 0
	for _, l := range lines(false) {
		keys := slices.Sorted(maps.Keys(l))
		if l["steps"].(float64) == 1 {
			stepKeys = keys
			continue
		}
		stretches++
		if stepKeys != nil && !slices.Equal(keys, stepKeys) {
			t.Fatalf("stretch line keys %v, step line keys %v", keys, stepKeys)
		}
		if r, ok := stepped[l["t_ns"].(float64)]; ok && l["resident_tokens"] != r {
			t.Errorf("stretch at %v ns: resident_tokens %v, the step at that time says %v", l["t_ns"], l["resident_tokens"], r)
		}
	}
	if stretches == 0 {
		t.Fatal("no stretch lines")
	}
}
