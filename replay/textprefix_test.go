package replay

import (
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A prompt prefix given without a text model (--prompt-prefix alone) is
// kept when Record calibrates the rest of the model: the shared blocks
// then cover exactly their prompt tokens on the engine.
func TestRecordKeepsPromptPrefixWhenCalibrating(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	dir := t.TempDir()
	cfg := testConfig(srv)
	cfg.Text = TextModel{Prefix: 7}
	in := rows(2, 0, 64, 2)
	in[0].PrefixHashes = []uint64{11, 22, 33, 44}
	in[1].PrefixHashes = []uint64{11, 22, 55, 66}
	cfg.Trace = writeTrace(t, dir, "in.jsonl", in) // block size 16
	cfg.Out = filepath.Join(dir, "out.jsonl")
	sums, err := Record(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sums[0].Text; got.Prefix != 7 || got.TokensPerByte == 0 {
		t.Errorf("text model %+v: want the calibrated model with Prefix 7", got)
	}
	var prompts []string
	for _, r := range srv.Requests() {
		if r.MaxTokens == 2 {
			prompts = append(prompts, r.Prompt)
		}
	}
	if len(prompts) != 2 {
		t.Fatalf("%d measured requests", len(prompts))
	}
	// Two shared 16-token blocks: 32 tokens, 7 of them the template's
	// header before the text, so 25 bytes of shared text.
	n := 0
	for n < len(prompts[0]) && n < len(prompts[1]) && prompts[0][n] == prompts[1][n] {
		n++
	}
	if n < 25 {
		t.Errorf("prompts share %d bytes, want 25 (32 shared tokens less the 7 before the text)\n%q\n%q", n, prompts[0], prompts[1])
	}
	_, got, err := traces.ReadAll(cfg.Out)
	if err != nil || len(got) != 2 || !got[0].Succeeded() {
		t.Fatalf("output: %v, %d rows", err, len(got))
	}
}
