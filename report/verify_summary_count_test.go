package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The section's first line counts the candidates replayed live: one whose
// engine never became healthy was not.
func TestVerificationCountsTheCandidatesReplayed(t *testing.T) {
	res, err := verify.LoadResult("../verify/testdata/verify-unmeasured.json")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	text := blocks[0].(*Text).Text
	if !strings.HasPrefix(text, "0 of 2 candidates measured live on 20 requests") {
		t.Errorf("first line %q: want 0 of the 2 candidates (neither engine became healthy) said measured", text)
	}
}
