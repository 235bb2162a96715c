package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/verify"
)

// The verification table and ranking say which basis the cost is on:
// hardware alone unless energy was measured, the sweep's estimate then.
func TestVerificationSaysTheCostBasis(t *testing.T) {
	for _, basis := range []string{verify.CostHardware, verify.CostHardwareEnergy} {
		res, err := verify.LoadResult("../verify/testdata/verify.json")
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Candidates {
			res.Candidates[i].CostBasis = basis
		}
		res.Ranking.CostBasis = basis
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		var rows, text string
		for _, b := range blocks {
			switch b := b.(type) {
			case *Table:
				for _, r := range b.Rows {
					rows += strings.Join(r, "|") + "\n"
				}
			case *Text:
				text += b.Text + "\n"
			}
		}
		if !strings.Contains(rows, "|usd_per_m_out ("+basis+")|") {
			t.Errorf("%s: table rows do not label the cost's basis:\n%s", basis, rows)
		}
		if want := costBasisNote(res); !strings.Contains(text, "Ranking by measured $/1M output tokens ("+want+")") {
			t.Errorf("%s: ranking does not say its basis:\n%s", basis, text)
		}
	}
}
