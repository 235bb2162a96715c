package replay

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// The turns of a synthetic session share their history's blocks by hash,
// so each turn's prompt text opens with the previous turn's text of those
// blocks, and an engine's prefix cache finds the history.
func TestSessionTurnPromptsShareHistory(t *testing.T) {
	c := traces.DefaultSynthConfig()
	c.Requests, c.BlockSize, c.ThinkTime = 40, 16, 3
	c.Prompt = traces.LengthSpec{Kind: traces.LengthUniform, Min: 20, Max: 90}
	c.Output = traces.LengthSpec{Kind: traces.LengthUniform, Min: 5, Max: 40}
	c.Turns = traces.LengthSpec{Kind: traces.LengthFixed, Value: 4}
	r, err := traces.Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	m := TextModel{TokensPerByte: 0.2, Overhead: 9, Prefix: 7}
	b := NewPromptBuilder(m, c.BlockSize, 42)
	type turn struct {
		text   string
		prompt int32
	}
	last := map[string]turn{}
	later := 0
	for i := 0; r.Next(); i++ {
		q := r.At()
		text := string(b.Build(nil, i, q))
		if prev, ok := last[q.SessionID]; ok {
			later++
			full := int(prev.prompt) / c.BlockSize * c.BlockSize
			// The history's full blocks, in bytes: the template's
			// Prefix tokens come before the text.
			n := min(int((float64(full)-m.Prefix)/m.TokensPerByte+0.5), len(prev.text))
			if text[:n] != prev.text[:n] {
				t.Errorf("row %d (session %s): prompt does not open with the previous turn's %d bytes of history", i, q.SessionID, n)
			}
		}
		last[q.SessionID] = turn{text, q.PromptTokens}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if later == 0 {
		t.Fatal("no later turn")
	}
}
