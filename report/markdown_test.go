package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A Markdown image link's destination ends at the first space (and an
// unbalanced parenthesis breaks it): a report file name with either must
// still link its figures.
func TestMarkdownFigureLinksSurviveSpacesInTheName(t *testing.T) {
	d, err := Build("t", &Inputs{Runs: []*Run{handRun("a", 0.1), handRun("b", 0.4)}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "weekly report (v2.md")
	if err := WriteFile(out, d); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]*)\)`).FindAllStringSubmatch(string(md), -1)
	if len(links) == 0 {
		t.Fatalf("no figure link a Markdown reader would take in:\n%s", md)
	}
	for _, l := range links {
		if !strings.HasSuffix(l[1], ".svg") {
			t.Errorf("link %q", l[1])
		}
		p := strings.NewReplacer("%20", " ", "%28", "(").Replace(l[1])
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Errorf("link %q: %v", l[1], err)
		}
	}
}

// A table cell that spans lines (a failed candidate's detail ends with the
// engine log) would end its Markdown row midway and break the table.
func TestMarkdownTableCellsStayOnTheirRow(t *testing.T) {
	d := &Doc{Title: "t", Sections: []Built{{ID: "v", Title: "V", Blocks: []Block{&Table{
		Header: []string{"candidate", "status", "verdict"},
		Rows: [][]string{
			{"#1 a", "health", "not healthy after 60s; log e.log ends: line one\r\nline two\nline three"},
			{"#2 b", "ok", "pass"},
		}}}}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 || !strings.Contains(rows[2], "line one") || !strings.Contains(rows[2], "line three") || !strings.Contains(rows[3], "#2 b") {
		t.Errorf("table rows %q: want a header, its rule and the two rows, each whole on its line\n%s", rows, b.String())
	}
}
