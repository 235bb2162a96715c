package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/servesim/servesim/internal/testfs"
	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// Verify figures are named by the candidate's rank, and the scatter has
// one name: two candidates of one rank (a tie), or two verify runs in one
// report, must each keep their own figure file in a Markdown report, not
// overwrite the other's, under the same names every time.
func TestMarkdownFigureFilesAreUnique(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.parquet")
	var rows []*traces.Request
	for i := range 20 {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = fmt.Sprint(i), int64(i)*1e9, 10, 5
		r.ScheduledSend, r.ActualSend, r.HTTPStatus = r.Arrival, r.Arrival, 200
		r.FirstToken, r.LastToken, r.UsageOutput = r.Arrival+int64(i+1)*1e7, r.Arrival+int64(i+1)*5e7, 5
		rows = append(rows, r)
	}
	if err := traces.WriteAll(trace, traces.Meta{Source: "live"}, rows); err != nil {
		t.Fatal(err)
	}
	p, m := 1.2, 1.0
	cand := func(label string) verify.CandidateResult {
		return verify.CandidateResult{Rank: 1, Label: label, Repeat: verify.Repeat{Status: verify.StatusOK, Trace: trace}, SimTrace: trace,
			Rows: verify.CompareMetrics(&verify.Metrics{OutTokPerSec: &p}, &verify.Metrics{OutTokPerSec: &m}, verify.DefaultTolerances())}
	}
	tie := &verify.Result{Requests: 20, Candidates: []verify.CandidateResult{cand("a"), cand("b")}}
	other := &verify.Result{Requests: 20, Candidates: []verify.CandidateResult{cand("c")}}
	write := func(out string) (figs int, links []string) {
		d, err := Build("t", &Inputs{}, VerificationSection{Result: tie}, VerificationSection{Result: other})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Sections {
			for _, b := range s.Blocks {
				if _, ok := b.(*Figure); ok {
					figs++
				}
			}
		}
		if err := WriteFile(out, d); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]*)\)`).FindAllStringSubmatch(string(md), -1) {
			links = append(links, l[1])
		}
		return figs, links
	}
	figs, links := write(filepath.Join(dir, "r.md"))
	if figs != (1+2*2)+(1+2) { // per run: the scatter, then TTFT and TPOT per candidate
		t.Fatalf("%d figures, want 8", figs)
	}
	if got := testfs.Names(t, filepath.Join(dir, "r_files")); len(got) != figs {
		t.Errorf("%d figures, %d files: %q", figs, len(got), got)
	}
	if u := slices.Compact(slices.Sorted(slices.Values(links))); len(u) != figs {
		t.Errorf("%d figures, %d distinct links: %q", figs, len(u), links)
	}
	if _, again := write(filepath.Join(dir, "r2.md")); !slices.Equal(stripDir(again), stripDir(links)) {
		t.Errorf("names changed between two writes: %q, then %q", links, again)
	}
}

func stripDir(links []string) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = filepath.Base(l)
	}
	return out
}
