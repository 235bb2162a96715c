package replay

import (
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// With a given prompt salt, --repeat's runs still send prompts of their
// own: run 2 sending run 1's prompts again would let the engine's prompt
// cache fake a fast TTFT. Run 1 keeps the salt as given.
func TestRecordRepeatsDoNotShareGivenSalt(t *testing.T) {
	prompts := func(repeat int) []string {
		srv := replaytest.New(replaytest.Options{Record: true})
		defer srv.Close()
		dir := t.TempDir()
		cfg := testConfig(srv)
		cfg.Arrival, cfg.Concurrency = Closed, 1 // server order = trace order
		cfg.Salt, cfg.Repeat = 7, repeat
		cfg.Trace = writeTrace(t, dir, "in.jsonl", rows(3, 0, 60, 2))
		cfg.Out = filepath.Join(dir, "out.jsonl")
		if _, err := Record(t.Context(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range srv.Requests() {
			out = append(out, r.Prompt)
		}
		return out
	}
	one, two := prompts(1), prompts(2)
	if len(one) != 3 || len(two) != 6 {
		t.Fatalf("%d and %d requests, want 3 and 6", len(one), len(two))
	}
	for i := range 3 {
		if two[i] != one[i] {
			t.Errorf("row %d: run 1 of 2 sent %q, a single run with the same salt %q", i, two[i], one[i])
		}
		if two[3+i] == two[i] {
			t.Errorf("row %d: run 2 sent run 1's prompt again: %q", i, two[i])
		}
	}
}
