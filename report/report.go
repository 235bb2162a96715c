// Package report turns servesim results into one self-contained HTML file
// (or Markdown with the figures beside it): a comparison table, latency
// CDFs, load curves with the knee, the Pareto front, KV occupancy over
// time and the cost breakdown by the five factors of the cost model.
//
// A report is a list of sections. Each Section looks at the loaded inputs
// and returns format-neutral blocks (text, tables, SVG figures) or none
// when its data is absent; the HTML and Markdown writers only lay blocks
// out. A new kind of section (e.g. predicted-vs-measured verification)
// is one more Section value passed to Build.
package report

import (
	"cmp"
	"fmt"
	"math"
)

// Section is one part of a report.
type Section interface {
	// Title is the section heading.
	Title() string
	// Blocks returns the section's content for in, or no blocks (and no
	// error) when nothing in in applies; the section is then left out.
	Blocks(in *Inputs) ([]Block, error)
}

// Block is one piece of section content: *Text, *Table or *Figure.
type Block interface{ block() }

// Text is a paragraph of plain text (escaped by the writers).
type Text struct{ Text string }

// Table is a table of plain-text cells. Marked rows are highlighted (e.g.
// Pareto-optimal configs); Numeric columns are right-aligned.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	Marked  []bool // per row; may be nil
	Numeric []bool // per column; may be nil
}

// Figure is a plot rendered as SVG. Name is a file-name stem (Markdown
// writes Name.svg beside the report, Name-2.svg and so on when a name
// repeats in it).
type Figure struct {
	Name    string
	Caption string
	SVG     []byte // a complete SVG document as gonum/plot writes it
}

func (*Text) block()   {}
func (*Table) block()  {}
func (*Figure) block() {}

// Doc is a built report: titled sections with their blocks.
type Doc struct {
	Title    string
	Inputs   []string // what was read, one line each
	Sections []Built
}

// Built is one section that had something to show.
type Built struct {
	ID     string // anchor, derived from the title
	Title  string
	Blocks []Block
}

// DefaultSections are the sections of a report, in order.
func DefaultSections() []Section {
	return []Section{
		ComparisonSection{},
		LatencyCDFSection{},
		LoadCurveSection{},
		ParetoSection{},
		KVSection{},
		CostSection{},
	}
}

// Build runs every section over in (DefaultSections when none are given).
// Sections with nothing to show are left out.
func Build(title string, in *Inputs, sections ...Section) (*Doc, error) {
	if len(sections) == 0 {
		sections = DefaultSections()
	}
	d := &Doc{Title: title, Inputs: append([]string(nil), in.Sources...)}
	in = distinctRunNames(in)
	seen := map[string]bool{}
	for _, s := range sections {
		blocks, err := s.Blocks(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Title(), err)
		}
		if len(blocks) == 0 {
			continue
		}
		// numbered until unused: a third like title, or one whose slug
		// is "x-2", must not take an anchor already given
		id := slug(s.Title())
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("%s-%d", slug(s.Title()), n)
		}
		seen[id] = true
		d.Sections = append(d.Sections, Built{ID: id, Title: s.Title(), Blocks: blocks})
	}
	if len(d.Sections) == 0 {
		return nil, fmt.Errorf("nothing to report: the inputs hold no runs or sweep rows")
	}
	return d, nil
}

// distinctRunNames is in, with each run or sweep whose name another
// shares (the same plan in two simulate --out folders, two sweeps of one
// spec, a summary's plan and its trace) named with the file it was read
// from too, so that tables and figures tell them
// apart; in itself is left as is.
func distinctRunNames(in *Inputs) *Inputs {
	out := *in
	out.Runs = renamed(in.Runs, func(r *Run) (*string, string) { return &r.Name, cmp.Or(r.Source, r.Path) })
	out.Sweeps = renamed(in.Sweeps, func(sw *Sweep) (*string, string) { return &sw.Name, sw.Path })
	return &out
}

// renamed is items with each whose name (of field: its name and path)
// distinctNames changes replaced by a renamed copy.
func renamed[T any](items []*T, field func(*T) (*string, string)) []*T {
	names, paths := make([]string, len(items)), make([]string, len(items))
	for i, it := range items {
		name, path := field(it)
		names[i], paths[i] = *name, path
	}
	out := make([]*T, len(items))
	for i, name := range distinctNames(names, paths) {
		out[i] = items[i]
		if name != names[i] {
			c := *items[i]
			n, _ := field(&c)
			*n = name
			out[i] = &c
		}
	}
	return out
}

// distinctNames is names with each that repeats followed by its path; a
// path can repeat too (a folder and its plan's trace given beside it, or
// one file twice): those are numbered in input order.
func distinctNames(names, paths []string) []string {
	count, withPath := map[string]int{}, map[string]int{}
	for i, n := range names {
		count[n]++
		withPath[n+"\x00"+paths[i]]++
	}
	out := make([]string, len(names))
	nth := map[string]int{}
	for i, n := range names {
		out[i] = n
		if count[n] > 1 {
			out[i] = fmt.Sprintf("%s (%s)", n, paths[i])
			if k := n + "\x00" + paths[i]; withPath[k] > 1 {
				nth[k]++
				out[i] = fmt.Sprintf("%s (%s, %d)", n, paths[i], nth[k])
			}
		}
	}
	return out
}

// slug makes an HTML id / file-name stem of s: lower-case ASCII letters,
// digits and dashes.
func slug(s string) string {
	var b []byte
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b = append(b, byte(r))
			dash = false
		case r >= 'A' && r <= 'Z':
			b = append(b, byte(r-'A'+'a'))
			dash = false
		default:
			if !dash && len(b) > 0 {
				b = append(b, '-')
				dash = true
			}
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "section"
	}
	return string(b)
}

// known reports whether v is a measured value (not NaN or ±Inf).
func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
