package calibrate

import (
	"slices"
	"testing"
)

// The warm-up is the plan's longest prompt at every decode client at once.
// A --max-prompt above the plan's own lengths only caps them (the sweep
// stays at 1,024 in quick): the warm-up must not grow with the flag, to a
// prompt longer than any the plan measures, which an engine's context may
// refuse (then nothing is warmed) and which a CPU engine takes long over.
func TestWarmupFollowsThePlansLongestPrompt(t *testing.T) {
	for _, c := range []struct {
		plan      string
		maxPrompt int
		want      int
	}{
		{PlanQuick, 0, 4*1024 - 1},
		{PlanQuick, 2048, 4*1024 - 1},
		{PlanQuick, 100_000, 4*1024 - 1},
		{PlanQuick, 300, 4*300 - 1}, // the ramp's prompts are capped to 300
		{PlanFull, 0, 16*2048 - 1},
		{PlanFull, 4096, 16*2048 - 1},
	} {
		p, err := NewPlan(c.plan, PlanOptions{MaxPrompt: c.maxPrompt})
		if err != nil {
			t.Fatal(err)
		}
		w := p.Runs[0]
		longest := slices.Max(p.PromptLengths())
		if w.Kind != KindWarmup || w.Prompts[0] != c.want {
			t.Errorf("%s --max-prompt %d: warm-up prompt %d, want %d (the plan's longest prompt is %d)", c.plan, c.maxPrompt, w.Prompts[0], c.want, longest)
		}
	}
}
