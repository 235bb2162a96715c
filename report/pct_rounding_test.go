package report

import (
	"strings"
	"testing"
)

// A share that is not 0 never reads as "0%", nor one short of all as
// "100%": 2 requests on 768,036 blocks used the cache, and a peak of
// 99.8% did not fill it. Whole percents stand elsewhere.
func TestPctNeverRoundsToNoneOrAll(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0%"},
		{0.0026, "0.26%"},
		{0.00016, "0.016%"},
		{1e-9, "<0.001%"},
		{-0.001, "-0.1%"},
		{-1e-9, ">-0.001%"},
		{0.004994, "0.5%"},
		{0.005, "1%"},
		{0.256, "26%"},
		{0.994, "99%"},
		{0.995, "99.5%"},
		{0.9994, "99.9%"},
		{0.99995, ">99.9%"},
		{1, "100%"},
		{1.003, "100%"},
	} {
		if got := fmtPct(c.v); got != c.want {
			t.Errorf("fmtPct(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

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
