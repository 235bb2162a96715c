package report

import (
	"strings"
	"testing"
)

// Markdown reads line breaks as structure: a title, input, text or
// caption that spans lines (a sweep spec's name from a hand-edited file)
// would end its heading or list item midway and could start a heading of
// its own ("# ..." or a line under "---"). Each must stay on its line.
func TestMarkdownTextStaysOnItsLine(t *testing.T) {
	d := &Doc{Title: "weekly\n# injected", Inputs: []string{"a.parquet\r\n- injected"}, Sections: []Built{{ID: "s", Title: "S",
		Blocks: []Block{&Text{"one\n---\ntwo"}, &Figure{Name: "f", Caption: "cap\n\nnext"}}}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, d, "", ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"# weekly # injected\n", "- a.parquet - injected\n", "\none --- two\n", "*Figure omitted: cap  next*"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
