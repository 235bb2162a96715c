package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/traces"
)

// A profile measured under a step loop's lock (Ollama's runner) simulates
// a static policy, which the lock does not apply to, with the admission
// delay_s the profile measured for a scheduler that takes a request in
// the next step, as the same profile without the lock does: it handed
// requests over after latency_s, the lock's delay, a step too early.
func TestProfileLockLeavesStaticPoliciesTheirDelay(t *testing.T) {
	dir := t.TempDir()
	// The second request arrives 1 ms before the first ends, at a busy
	// engine; the first's 3 steps take 18.2 ms.
	var reqs []*traces.Request
	for i, at := range []int64{0, 17_200_000} {
		var r traces.Request
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = []string{"a", "b"}[i], at, 100, 3
		reqs = append(reqs, &r)
	}
	tr := filepath.Join(dir, "in.parquet")
	if err := traces.WriteAll(tr, traces.Meta{Source: "test"}, reqs); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Load("../cmd/servesim/defaults/1-serial.toml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(model.DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	ttft := func(lock bool) (float64, string) {
		t.Helper()
		prof, err := calibrate.LoadProfile("../calibrate/testdata/profile_v1.json") // delay_s 4 ms, latency_s 1.5 ms
		if err != nil {
			t.Fatal(err)
		}
		prof.Admission.Lock = lock
		step, desc, err := StepModel(prof, "p.json")
		if err != nil {
			t.Fatal(err)
		}
		in, err := traces.Open(tr)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		res, err := r.Simulate(context.Background(), "serial", in, nil, plan.Options{Step: step, StepModel: desc})
		if err != nil {
			t.Fatal(err)
		}
		return res.Summary.TTFT.Max, desc
	}
	locked, desc := ttft(true)
	free, _ := ttft(false)
	if locked != free {
		t.Errorf("serial plan: the second request's TTFT %.4f s with the lock, %.4f s without; want the same (delay_s, 4 ms)", locked, free)
	}
	if !strings.Contains(desc, "4.0 ms") {
		t.Errorf("step model %q does not give delay_s (4.0 ms), which the static policies use", desc)
	}
}
