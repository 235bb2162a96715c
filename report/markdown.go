package report

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/internal/atomicfile"
)

// WriteMarkdown writes d as GitHub-flavoured Markdown: text and tables
// inline, each figure as an SVG file in assetsDir, linked as
// assetsRel/NAME.svg. With assetsDir "" the figures are left out and a
// note says so.
func WriteMarkdown(w io.Writer, d *Doc, assetsDir, assetsRel string) error {
	if assetsDir != "" {
		if err := os.MkdirAll(assetsDir, 0o755); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdHeading(d.Title))
	for _, in := range d.Inputs {
		fmt.Fprintf(&b, "- %s\n", mdBlock(in))
	}
	omitted := 0
	used := map[string]bool{} // file names taken, lower-case (as a case-blind file system sees them)
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "\n## %s\n", mdText(s.Title))
		for _, blk := range s.Blocks {
			switch v := blk.(type) {
			case *Text:
				fmt.Fprintf(&b, "\n%s\n", mdBlock(v.Text))
			case *Table:
				writeMDTable(&b, v)
			case *Figure:
				if assetsDir == "" {
					omitted++
					fmt.Fprintf(&b, "\n*Figure omitted: %s*\n", mdText(v.Caption))
					continue
				}
				// Names repeat across sections (two verify runs) and
				// within one (tied ranks): each figure keeps a file of
				// its own, numbered in the order the report shows them.
				file := v.Name + ".svg"
				for n := 2; used[strings.ToLower(file)]; n++ {
					file = fmt.Sprintf("%s-%d.svg", v.Name, n)
				}
				used[strings.ToLower(file)] = true
				// Each on disk before the folder is renamed into place.
				if err := atomicfile.WriteFile(filepath.Join(assetsDir, file), standaloneSVG(v.SVG)); err != nil {
					return err
				}
				fmt.Fprintf(&b, "\n![%s](%s)\n\n*%s*\n", mdText(v.Caption), mdLink(filepath.Join(assetsRel, file)), mdText(v.Caption))
			}
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n---\n%d figures omitted; the HTML report (`-o report.html`) inlines them.\n", omitted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMDTable(b *strings.Builder, t *Table) {
	if t.Caption != "" {
		fmt.Fprintf(b, "\n%s\n", mdBlock(t.Caption))
	}
	b.WriteString("\n|")
	for _, h := range t.Header {
		fmt.Fprintf(b, " %s |", mdCell(h))
	}
	b.WriteString("\n|")
	for j := range t.Header {
		if j < len(t.Numeric) && t.Numeric[j] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for i, r := range t.Rows {
		b.WriteString("|")
		for j, c := range r {
			c = mdCell(c)
			// "**" does not open before a space or close after one (an
			// unlabelled config's "#1 ★ ")
			if s := strings.TrimSpace(c); j == 0 && i < len(t.Marked) && t.Marked[i] && s != "" {
				c = "**" + s + "**"
			}
			fmt.Fprintf(b, " %s |", c)
		}
		b.WriteString("\n")
	}
}

// mdLink is a relative file path as a link destination: each segment
// percent-encoded, since a space ends a Markdown link's destination and
// an unbalanced parenthesis breaks it.
func mdLink(path string) string {
	segs := strings.Split(filepath.ToSlash(path), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// mdText escapes the characters Markdown would read as markup or HTML
// (an ampersand too: "&lt;" in a name is text, not an entity; a tilde,
// as "~~x~~" is struck through in GitHub's Markdown), and makes
// line breaks spaces: a break would end a heading, list item or caption
// midway, and the next line could read as a heading ("# x", "---").
func mdText(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", `\`, `\\`, "&", "&amp;", "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "~", `\~`).Replace(s)
}

// mdBlock is mdText for text that starts a paragraph or list item, whose
// first characters Markdown reads as structure: "# x" a heading, "- x",
// "+ x" or "1. x" a list, "---" a rule, and four spaces code.
func mdBlock(s string) string {
	s = strings.TrimLeft(mdText(s), " \t")
	if s == "" {
		return s
	}
	if strings.ContainsRune("#-+=", rune(s[0])) {
		return `\` + s
	}
	if n := len(s) - len(strings.TrimLeft(s, "0123456789")); n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')') {
		return s[:n] + `\` + s[n:]
	}
	return s
}

// mdHeading is mdText for a heading's text, whose closing "#"s Markdown
// drops ("Run #" would read "Run").
func mdHeading(s string) string {
	s = mdText(s)
	if strings.HasSuffix(s, "#") {
		s = s[:len(s)-1] + `\#`
	}
	return s
}

// mdCell escapes a table cell, which must stay on its row's line (mdText
// sees to that).
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}
