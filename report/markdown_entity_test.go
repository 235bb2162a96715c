package report

import (
	"strings"
	"testing"
)

// Markdown reads an HTML entity in text as the character it names: a run
// named "a&lt;b" (or a title "R&amp;D") must show as written, not as "a<b".
func TestMarkdownKeepsAmpersandsLiteral(t *testing.T) {
	d, err := Build("R&amp;D", &Inputs{Sources: []string{"x&gt;y.parquet: trace"}, Runs: []*Run{handRun("a&lt;b", 0.1)}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, raw := range []string{"# R&amp;D\n", "- x&gt;y.parquet", "| a&lt;b |"} {
		if strings.Contains(md, raw) {
			t.Errorf("Markdown holds %q, which a reader shows with the entity decoded", raw)
		}
	}
	for _, want := range []string{"# R&amp;amp;D\n", "- x&amp;gt;y.parquet", "| a&amp;lt;b |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// GitHub's Markdown strikes "~~x~~" through: a tilde in a title, an input,
// a table cell or a caption is escaped, so names show as written.
func TestMarkdownEscapesTildes(t *testing.T) {
	d, err := Build("v1~~draft~~", &Inputs{Sources: []string{"~~old~~.parquet: trace"}, Runs: []*Run{handRun("a~~b~~", 0.1)}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "~~") {
		t.Errorf("Markdown holds an unescaped \"~~\", which GitHub strikes through:\n%s", md)
	}
	for _, want := range []string{`# v1\~\~draft\~\~`, `- \~\~old\~\~.parquet`, `| a\~\~b\~\~ |`} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
