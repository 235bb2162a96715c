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
// request, but never past max_model_len, which no output runs past: a
// max_new_tokens as large as the whole cache resolves and its requests are
// served, as the cache holds a max_model_len sequence. It was refused, and
// the simulator rejected every request such a plan sent it.
func TestStaticReservationStopsAtMaxModelLen(t *testing.T) {
	capacity := mustResolve(t, staticPlan(`strategy = "serial"`, 1024)).Capacity.MaxTokens
	for _, strategy := range []string{
		`strategy = "serial"`,
		"strategy = \"fixed\"\nbatch_size = 8\nmax_wait_ms = 5",
		"strategy = \"token_budget\"\nmax_token_budget = 8192\nmax_wait_ms = 5",
	} {
		name := strings.SplitN(strategy, "\n", 2)[0]
		t.Run(name, func(t *testing.T) {
			r := mustResolve(t, staticPlan(strategy, capacity))
			res, _ := simulate(t, r, oneTinyRequest(t))
			if res.Summary.Completed != 1 || res.Summary.Rejected != 0 {
				t.Fatalf("max_new_tokens %d: %d completed, %d rejected; want the request served", capacity, res.Summary.Completed, res.Summary.Rejected)
			}
		})
	}
}

// A measured KV capacity larger than the catalog's is the one the KV
// checks judge, as it is the one the simulation uses: a plan that only it
// holds resolves, on its blocks, and a refusal names the measurement. A
// smaller measurement changes nothing.
func TestResolveMeasuredChecksTheCacheItUses(t *testing.T) {
	cat := model.DefaultCatalog()
	const bs = 16
	measured := func(blocks int64) *MeasuredKV { return &MeasuredKV{Source: "profile p.json", Tokens: blocks * bs} }
	for _, c := range []struct {
		name, plan, key string
		need            int64 // blocks the plan needs, more than the catalog's cache holds
	}{
		{"max_model_len", strings.NewReplacer("gpu_memory_utilization = 0.9", "gpu_memory_utilization = 0.4",
			"max_model_len = 8192", "max_model_len = 131072").Replace(valid), "device.max_model_len: ", 131072 / bs},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse([]byte(c.plan))
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range []*MeasuredKV{nil, measured(1)} {
				if _, err := p.ResolveMeasured(cat, kv); err == nil || !strings.HasPrefix(err.Error(), c.key) ||
					!strings.Contains(err.Error(), "device.gpu_memory_utilization") || strings.Contains(err.Error(), "measured") {
					t.Fatalf("measured %v: err = %v, want %q refused on the catalog's cache", kv, err, c.key)
				}
			}
			r, err := p.ResolveMeasured(cat, measured(c.need))
			if err != nil {
				t.Fatalf("measured %d blocks: %v", c.need, err)
			}
			if int64(r.Capacity.KVBlocks) != c.need || r.KVSource != "profile p.json" || r.CatalogKVBlocks >= r.Capacity.KVBlocks {
				t.Errorf("resolved on %d blocks (source %q, catalog %d), want the measured %d", r.Capacity.KVBlocks, r.KVSource, r.CatalogKVBlocks, c.need)
			}
			// One block short of the plan, yet more than the catalog's.
			_, err = p.ResolveMeasured(cat, measured(c.need-1))
			want := fmt.Sprintf("measured by profile p.json holds %d blocks (%d tokens; the catalog's", c.need-1, (c.need-1)*bs)
			if err == nil || !strings.HasPrefix(err.Error(), c.key) || !strings.Contains(err.Error(), want) {
				t.Errorf("measured one block short: err = %v\nwant %q naming %q", err, c.key, want)
			}
		})
	}
}
