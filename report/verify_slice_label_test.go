package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The slice verify replayed is the --slice flag's value: bare, "20"
// after "on 20 requests" read as a stray count.
func TestVerificationNamesTheSlice(t *testing.T) {
	res := &verify.Result{Requests: 20, Slice: "20", StepModel: "roofline prior",
		Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusHealth}}}}
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	intro := blocks[0].(*Text).Text
	if !strings.Contains(intro, "on 20 requests (--slice 20)") {
		t.Errorf("intro %q: want the slice named as the flag it came from", intro)
	}
}
