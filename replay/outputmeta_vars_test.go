package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A recording says what made its numbers: the servesim version that
// recorded it (not the one that made its input), the input file by
// checksum, and the prompt salt its prompts were built with, drawn or
// given: run again with that salt, the same prompts go out.
func TestRecordMetaNamesVersionInputAndSalt(t *testing.T) {
	record := func(salt uint64) (traces.Meta, []string) {
		srv := replaytest.New(replaytest.Options{Record: true})
		defer srv.Close()
		dir := t.TempDir()
		cfg := testConfig(srv)
		cfg.Arrival, cfg.Concurrency = Closed, 1 // server order = trace order
		cfg.Salt, cfg.ToolVersion = salt, "v1.2.3"
		cfg.Trace = filepath.Join(dir, "in.jsonl")
		if err := traces.WriteAll(cfg.Trace, traces.Meta{Source: "simulated", ToolVersion: "v0.9"}, rows(3, 0, 60, 2)); err != nil {
			t.Fatal(err)
		}
		cfg.Out = filepath.Join(dir, "out.parquet")
		if _, err := Record(t.Context(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		meta, _, err := traces.ReadAll(cfg.Out)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(cfg.Trace)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got, want := meta.Checksums["in.jsonl"], "sha256:"+hex.EncodeToString(sum[:]); got != want {
			t.Errorf("checksum of the input = %q, want %q", got, want)
		}
		if meta.ToolVersion != "v1.2.3" || meta.Extra["input_tool_version"] != "v0.9" {
			t.Errorf("tool_version %q, input_tool_version %q; want v1.2.3 and the input's v0.9", meta.ToolVersion, meta.Extra["input_tool_version"])
		}
		var prompts []string
		for _, r := range srv.Requests() {
			prompts = append(prompts, r.Prompt)
		}
		return meta, prompts
	}
	meta, drawn := record(0)
	s, err := strconv.ParseUint(meta.Extra["replay.prompt_salt"], 10, 64)
	if err != nil || s == 0 {
		t.Fatalf("replay.prompt_salt = %q, want the salt drawn", meta.Extra["replay.prompt_salt"])
	}
	_, again := record(s)
	if len(again) != len(drawn) || len(drawn) != 3 {
		t.Fatalf("%d and %d requests, want 3", len(drawn), len(again))
	}
	for i := range drawn {
		if again[i] != drawn[i] {
			t.Errorf("row %d: the recorded salt sent %q, the run it was recorded by %q", i, again[i], drawn[i])
		}
	}
}
