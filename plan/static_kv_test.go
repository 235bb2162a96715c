package plan

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

// staticPlan is valid with the given strategy section and max_new_tokens.
func staticPlan(strategy string, maxNew int) string {
	return strings.NewReplacer(
		"max_num_seqs = 256\nmax_num_batched_tokens = 8192\nchunked_prefill = true\n", "",
		`strategy = "continuous"`, strategy,
		"max_new_tokens = 1024", fmt.Sprintf("max_new_tokens = %d", maxNew),
	).Replace(valid)
}

// oneTinyRequest is a trace of one request with a 1-token prompt and a
// 1-token answer: the least any request reserves.
func oneTinyRequest(t *testing.T) traces.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "one.jsonl")
	if err := traces.WriteAll(path, traces.Meta{}, []*traces.Request{{ID: "r0", PromptTokens: 1, OutputTokens: 1}}); err != nil {
		t.Fatal(err)
	}
	in, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// A static policy reserves prompt + max_new_tokens of KV cache for every
// request. A max_new_tokens that leaves no room for even a 1-token prompt
// made the simulator reject every request; the plan is refused when it is
// resolved instead, as a max_model_len the cache cannot hold is.
func TestResolveRefusesAStaticReservationNoRequestFits(t *testing.T) {
	capacity := mustResolve(t, staticPlan(`strategy = "serial"`, 1024)).Capacity.MaxTokens
	for _, strategy := range []string{
		`strategy = "serial"`,
		"strategy = \"fixed\"\nbatch_size = 8\nmax_wait_ms = 5",
		"strategy = \"token_budget\"\nmax_token_budget = 100000000\nmax_wait_ms = 5",
	} {
		name := strings.SplitN(strategy, "\n", 2)[0]
		t.Run(name, func(t *testing.T) {
			// The largest max_new_tokens that fits: a 1-token prompt fills
			// the cache to the last token, and the request is served.
			r := mustResolve(t, staticPlan(strategy, capacity-1))
			res, _ := simulate(t, r, oneTinyRequest(t))
			if res.Summary.Completed != 1 || res.Summary.Rejected != 0 {
				t.Fatalf("max_new_tokens %d: %d completed, %d rejected; want the request served", capacity-1, res.Summary.Completed, res.Summary.Rejected)
			}

			// One token more and the simulator rejects that request.
			r.Plan.Model.MaxNewTokens = capacity
			if res, _ := simulate(t, r, oneTinyRequest(t)); res.Summary.Rejected != 1 {
				t.Fatalf("max_new_tokens %d: %d rejected; want the request rejected", capacity, res.Summary.Rejected)
			}

			p, err := Parse([]byte(staticPlan(strategy, capacity)))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Resolve(model.DefaultCatalog())
			if err == nil {
				t.Fatalf("max_new_tokens %d, one token past the KV cache of %d tokens: resolved; every request would be rejected", capacity, capacity)
			}
			for _, want := range []string{"model.max_new_tokens", fmt.Sprintf("(%d tokens:", capacity), "KV cache of", "device.gpu_memory_utilization 0.9"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v\nwant it to mention %q", err, want)
				}
			}
		})
	}
	// Continuous batching reserves nothing ahead: the same cap only bounds
	// each answer.
	cont := strings.Replace(valid, "max_new_tokens = 1024", fmt.Sprintf("max_new_tokens = %d", capacity), 1)
	mustResolve(t, cont)
}
