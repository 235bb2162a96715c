package replay

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// Prompts too short for the whole run tag are still unique within a run:
// the request's index survives the cut, so the engine's prompt cache
// cannot answer one tiny prompt with another's.
func TestTinyPromptsStayUnique(t *testing.T) {
	m := TextModel{TokensPerByte: 1, Overhead: 20}
	pb := NewPromptBuilder(m, 16, 0xabcdef)
	for rest := 2; rest <= 12; rest++ {
		seen := map[string]int{}
		for idx := range 36 {
			p := string(pb.Build(nil, idx, &traces.Request{PromptTokens: int32(20 + rest)}))
			if len(p) != rest {
				t.Fatalf("%d bytes wanted, got %q", rest, p)
			}
			if other, dup := seen[p]; dup {
				t.Errorf("%d-byte prompts of requests %d and %d are the same: %q", rest, other, idx, p)
				break
			}
			seen[p] = idx
		}
	}
	// Equal hashed blocks and a tail shorter than the tag: the tails differ.
	a := pb.Build(nil, 1, &traces.Request{PromptTokens: 40, PrefixHashes: []uint64{7, 8}})
	b := pb.Build(nil, 2, &traces.Request{PromptTokens: 40, PrefixHashes: []uint64{7, 8}})
	if string(a) == string(b) {
		t.Errorf("rows sharing every hash with a short unhashed tail got the same prompt: %q", a)
	}
}
