package report

import (
	"strings"
	"testing"
)

// Markdown reads the start of a paragraph or list item as structure: a
// run named "# big" or "1. base" that stopped early, or an input path
// "- x", would show as a heading, a list or a rule, and one led by four
// spaces as code; a title ending in " #" would lose its "#". Each shows as
// written.
func TestMarkdownTextStartsNoBlock(t *testing.T) {
	big, base := handRun("# big", 0.1), handRun("1. base", 0.2)
	big.Result.Outcome, base.Result.Outcome = "out of KV memory", "out of KV memory"
	d, err := Build("Run #", &Inputs{Sources: []string{"- x.parquet: trace", "    y.parquet: trace"}, Runs: []*Run{big, base}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"# Run \\#\n", "\n- \\- x.parquet: trace\n", "\n- y.parquet: trace\n",
		"\n\\# big: the run stopped early", "\n1\\. base: the run stopped early"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
