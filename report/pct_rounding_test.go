package report

import (
	"strings"
	"testing"
)

// The KV panel and the cost table of a run that barely used a large
// cache give its mean and peak as the small shares they are.
func TestKVFiguresOfABarelyUsedCache(t *testing.T) {
	r := handRun("sparse", 0.1)
	kv := &r.Result.Summary.KV
	kv.TotalBlocks, kv.MeanUtil, kv.MaxUtil = 768036, 40.0/768036, 126.0/768036
	blocks, err := CostSection{}.Blocks(&Inputs{Runs: []*Run{r}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := blocks[0].(*Table).Rows[0][8], "0.0052% / 0.016%"; got != want {
		t.Errorf("KV used mean / max = %q, want %q", got, want)
	}
	fig, err := kvFigure([]*Run{r}, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "768036 blocks, mean 0.0052%, peak 0.016%"; !strings.Contains(string(fig.SVG), want) {
		t.Errorf("KV panel title lacks %q", want)
	}
}
