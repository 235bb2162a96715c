package report

import (
	"strings"
	"testing"
)

// The comparison's counts column shows completed of all requests, then the
// failures; its header says so, not "done / failed" over "8/10 · 2".
func TestComparisonCountsHeaderMatchesCell(t *testing.T) {
	r := handRun("a", 0.1)
	r.Metrics.Requests, r.Metrics.Completed, r.Metrics.Failed = 10, 8, 2
	blocks, err := ComparisonSection{}.Blocks(&Inputs{Runs: []*Run{r}})
	if err != nil {
		t.Fatal(err)
	}
	tab := blocks[0].(*Table)
	col := -1
	for i, h := range tab.Header {
		if strings.HasPrefix(h, "done") {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no counts column in %q", tab.Header)
	}
	if h, c := tab.Header[col], tab.Rows[0][col]; h != "done/requests · failed" || c != "8/10 · 2" {
		t.Errorf("header %q over cell %q: want \"done/requests · failed\" over \"8/10 · 2\"", h, c)
	}
}
