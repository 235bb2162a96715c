package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure geometry: the plot area, then the legend below it, one entry a line.
const (
	figW       = 8.5 * vg.Inch
	figH       = 3.8 * vg.Inch
	legendLine = 15 // pt per legend entry
	maxLegend  = 48 // characters of a legend label
	titleInset = 8  // pt kept free either side of a title
	gridPadX   = 18 // pt between the panels of a row
)

// palette is Tableau 10: distinct, colour-blind tolerant, readable on white.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

func colorOf(i int) color.RGBA { return palette[i%len(palette)] }

var grey = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}

func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

// newPlot is a plot with a title, labelled axes (put the unit in the
// label), a light grid and sans-serif text large enough to read when the
// figure is scaled to a page column.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(13, true)
	p.Title.Padding = 6
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Marker = readableTicks{}
		a.Label.TextStyle.Font = sans(11, false)
		a.Tick.Label.Font = sans(10, false)
		a.Padding = 3
	}
	p.Legend.TextStyle.Font = sans(10, false)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xe4}
	g.Horizontal.Color = color.Gray{0xe4}
	p.Add(g)
	return p
}

// readableTicks are gonum/plot's default ticks labelled as a person
// writes their values (tickLabel) with the digits they need: its own
// labels can round the ticks of a narrow range alike (over 1.45–1.50, the
// ticks at 1.46, 1.48 and 1.5 all read "1.5"), and a sweep's P99s gather
// in such a range just under the SLO.
type readableTicks struct{}

func (readableTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	step, prev, top := math.Inf(1), math.Inf(-1), 0.0
	for _, t := range ticks {
		if t.Label != "" {
			step, prev, top = math.Min(step, t.Value-prev), t.Value, math.Max(top, math.Abs(t.Value))
		}
	}
	// a label reads as its tick when it is within a millionth of the
	// ticks' spacing of it
	reads := func(label string, v float64) bool {
		x, ok := parseTickLabel(label)
		return ok && math.Abs(x-v) <= 1e-6*step
	}
	for d := 0; d <= 16; d++ {
		labels := make([]string, len(ticks))
		ok := true
		for i, t := range ticks {
			if t.Label == "" {
				continue
			}
			v := t.Value
			if math.Abs(v) < 1e-9*step { // rounding's -2.8e-17 is 0, not "-0"
				v = 0
			}
			labels[i] = tickLabel(v, top, d)
			ok = ok && reads(labels[i], t.Value)
		}
		if ok {
			for i := range ticks {
				ticks[i].Label = labels[i]
			}
			return ticks
		}
	}
	return ticks
}

// tickSuffixes name millions and more on an axis, as "2.5M" rather than
// "2500000" or "2.5e+06".
var tickSuffixes = []struct {
	scale  float64
	suffix string
}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}}

// tickLabel writes v with up to d decimals (d < 0: as many as v needs to
// read back) and no trailing zeros, in the unit (M, G, T) that top, the
// largest value on its axis, reads best in; from numfmt.Huge on in
// exponent form, as the tables write such figures.
func tickLabel(v, top float64, d int) string {
	if top >= numfmt.Huge {
		digits := d + 1
		if d < 0 {
			digits = -1 // not d+1 = 0, which 'g' writes as one digit
		}
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	suffix := ""
	for _, s := range tickSuffixes {
		if top >= s.scale {
			v, suffix = v/s.scale, s.suffix
			break
		}
	}
	t := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	if t == "-0" {
		t = "0"
	}
	if t != "0" {
		t += suffix
	}
	return t
}

// parseTickLabel reads a tickLabel back.
func parseTickLabel(label string) (float64, bool) {
	scale := 1.0
	for _, s := range tickSuffixes {
		if l, ok := strings.CutSuffix(label, s.suffix); ok {
			label, scale = l, s.scale
			break
		}
	}
	v, err := strconv.ParseFloat(label, 64)
	return v * scale, err == nil
}

// readableLogTicks are gonum/plot's ticks of a log axis labelled as
// tickLabel writes each value: "1M", not "1e+06" after "100000". Ticks
// beyond the range are dropped: gonum/plot runs them out to the next
// decade and pads the plot for their labels, a blank band past the axis.
type readableLogTicks struct{}

func (readableLogTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(min, max) {
		if t.Value < min*(1-1e-9) || t.Value > max*(1+1e-9) {
			continue
		}
		if t.Label != "" {
			t.Label = tickLabel(t.Value, math.Abs(t.Value), -1)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logAxis switches a to a log scale with readable ticks when the positive
// values span more than two decades; it reports whether it did.
func logAxis(a *plot.Axis, lo, hi float64) bool {
	if !(lo > 0) || hi/lo < 100 {
		return false
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = readableLogTicks{}
	return true
}

// drawableRange keeps an axis range gonum/plot can draw and read: finite
// ends (a margin added to a value near the float64 maximum overflows, and
// an infinite end is drawn as 0, which a log axis cannot take), and equal
// ends v (one request, a P99 alike at every load) spread from 0 to 2v, or
// to 1 at 0 (every cost $0): gonum/plot's own ±1 is lost to rounding from
// 1e16 on, and below 1 puts the axis mostly under 0 (latencies from
// -0.8 s for a 0.2 s P99, costs from -$1).
func drawableRange(a *plot.Axis) {
	a.Min, a.Max = math.Max(a.Min, -math.MaxFloat64), math.Min(a.Max, math.MaxFloat64)
	if v := a.Min; a.Max == v {
		if v == 0 {
			a.Max = 1
			return
		}
		a.Min, a.Max = math.Max(math.Min(0, 2*v), -math.MaxFloat64), math.Min(math.Max(0, 2*v), math.MaxFloat64)
	}
}

// legendEntry is one series in a figure's legend.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// render draws p with the legend entries listed below the plot area and
// returns the SVG document.
func render(p *plot.Plot, legend []legendEntry) ([]byte, error) {
	h := figH
	if len(legend) > 0 {
		h += vg.Length(legendLine*len(legend) + 10)
	}
	p.Title.Text = fitWidth(p.Title.Text, p.Title.TextStyle, figW-2*titleInset)
	c := vgsvg.New(figW, h)
	dc := draw.New(c)
	top := draw.Crop(dc, 0, 0, vg.Length(h-figH), 0) // the plot: the top figH
	drawPlot(p, top)
	if len(legend) > 0 {
		l := plot.NewLegend()
		l.TextStyle.Font = sans(10, false)
		l.Top, l.Left = true, true
		l.ThumbnailWidth = 22
		l.Padding = vg.Length(legendLine) - 10
		for _, e := range legend {
			l.Add(truncate(e.label, maxLegend*2), e.thumbs...)
		}
		bottom := draw.Crop(dc, 12, 0, 0, -(figH + 4))
		l.Draw(bottom)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// drawPlot draws p on c. On a log y axis it draws the axis label itself,
// at the middle of the axis: gonum/plot reserves room for the label
// around the plain average of the axis ends, which on a log axis sits
// near the top, and so shrinks the plot area under the title by up to
// half the label's length. The title and background go on the whole
// canvas, as gonum/plot draws them; the rest beside the label's strip.
func drawPlot(p *plot.Plot, c draw.Canvas) {
	if _, log := p.Y.Scale.(plot.LogScale); !log || p.Y.Label.Text == "" {
		p.Draw(c)
		return
	}
	title, label, bg := p.Title, p.Y.Label, p.BackgroundColor
	defer func() { p.Title, p.Y.Label, p.BackgroundColor = title, label, bg }()
	if bg != nil {
		c.SetColor(bg)
		c.Fill(c.Rectangle.Path())
	}
	if title.Text != "" {
		sty := title.TextStyle
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y + sty.FontExtents().Descent}, title.Text)
		c.Max.Y -= sty.Rectangle(title.Text).Size().Y + title.Padding
	}
	// the strip gonum/plot keeps left of the tick labels for the label
	sty, descent := label.TextStyle, label.TextStyle.FontExtents().Descent
	rest := draw.Crop(c, sty.Height(label.Text)+descent+label.Padding, 0, 0, 0)
	p.Title.Text, p.Y.Label.Text, p.BackgroundColor = "", "", nil
	p.Draw(rest)
	sty.Rotation += math.Pi / 2
	data := p.DataCanvas(rest)
	at := vg.Point{X: c.Min.X + label.TextStyle.Height(label.Text) - descent, Y: data.Center().Y}
	c.FillText(sty, at, label.Text)
}

// fitWidth shortens each line of s in its middle, "…" in place of what
// is cut, until sty draws it within width: a centred title wider than its
// figure loses both ends, its start (what the figure shows) and its end
// (a sweep's path, where two of one spec differ).
func fitWidth(s string, sty text.Style, width vg.Length) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		r := []rune(l)
		for cut := 1; sty.Width(lines[i]) > width && cut < len(r); cut++ {
			head := (len(r) - cut + 1) / 2
			lines[i] = string(r[:head]) + "…" + string(r[head+cut:])
		}
	}
	return strings.Join(lines, "\n")
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// xyLine adds a line (and optional point markers) of colour i to p.
func xyLine(p *plot.Plot, pts plotter.XYs, i int, dashed bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = colorOf(i)
	l.Width = vg.Points(1.8)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l)
	return l, nil
}

func scatter(p *plot.Plot, pts plotter.XYs, c color.Color, shape draw.GlyphDrawer, radius vg.Length) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Color = c
	s.GlyphStyle.Shape = shape
	s.GlyphStyle.Radius = radius
	p.Add(s)
	return s, nil
}

// cdfLevels is how many evenly spaced quantiles a CDF line of more
// requests is drawn at: a line of a million requests stays a few
// hundred points, and its steps of 1/600 take in the P50 and P99.
const cdfLevels = 600

// cdfPoints is the empirical CDF of sorted values at each value, or, of
// more than n values, at the nearest-rank quantiles 1/n, 2/n, … 1, in the
// units given by scale. The line starts from 0 at the least value, so
// that one request's CDF is a rise there rather than a lone point, which
// draws nothing.
func cdfPoints(sorted []float64, scale float64, n int) plotter.XYs {
	if len(sorted) == 0 {
		return nil
	}
	pts := plotter.XYs{{X: sorted[0] * scale, Y: 0}}
	at := func(rank int) {
		pts = append(pts, plotter.XY{X: sorted[rank-1] * scale, Y: float64(rank) / float64(len(sorted))})
	}
	if len(sorted) <= n {
		for rank := 1; rank <= len(sorted); rank++ {
			at(rank)
		}
		return pts
	}
	for k := 1; k <= n; k++ {
		at(nearestRank(float64(k)/float64(n), len(sorted))) // as Quantile reads it
	}
	return pts
}

// timeUnit picks seconds or milliseconds for latencies up to hi seconds.
func timeUnit(hi float64) (scale float64, unit string) {
	if hi < 1 {
		return 1e3, "ms"
	}
	return 1, "s"
}

// clampPositive replaces non-positive X by floor so a log axis can draw them.
func clampPositive(pts plotter.XYs, floor float64) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		if p.X < floor {
			p.X = floor
		}
		out[i] = p
	}
	return out
}

// clampPositiveY is clampPositive for y: a log y axis cannot place a
// value at or below 0.
func clampPositiveY(pts plotter.XYs, floor float64) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		p.Y = math.Max(p.Y, floor)
		out[i] = p
	}
	return out
}

var (
	svgProlog = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	svgNS     = regexp.MustCompile(`\s+xmlns(:xlink)?="[^"]*"`)
	svgSize   = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
	svgFont   = regexp.MustCompile(`font-family:Liberation (Sans|Serif|Mono);`)
)

// fontStack lets the browser fall back to a metric-compatible font when
// Liberation is not installed (text is measured with Liberation metrics).
func fontStack(svg []byte) []byte {
	return svgFont.ReplaceAllFunc(svg, func(m []byte) []byte {
		switch {
		case bytes.Contains(m, []byte("Sans")):
			return []byte(`font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;`)
		case bytes.Contains(m, []byte("Mono")):
			return []byte(`font-family:'Liberation Mono','Cousine','Courier New',monospace;`)
		}
		return []byte(`font-family:'Liberation Serif',Tinos,'Times New Roman',serif;`)
	})
}

// inlineSVG prepares an SVG document for inlining in HTML5: no XML
// prolog, no namespace declarations (HTML does not need them, and the
// report must hold no URLs), size set by the stylesheet (the viewBox
// keeps the aspect ratio), and a font stack.
func inlineSVG(svg []byte, title string) []byte {
	s := svgProlog.ReplaceAll(svg, nil)
	s = svgNS.ReplaceAll(s, nil)
	s = svgSize.ReplaceAllLiteral(s, []byte(fmt.Sprintf(`<svg role="img" aria-label="%s"`, htmlAttr(title))))
	return fontStack(s)
}

// standaloneSVG is an SVG document for a file of its own (Markdown): it
// keeps the namespace a standalone SVG needs.
func standaloneSVG(svg []byte) []byte { return fontStack(svg) }

// renderGrid draws plots as small multiples, cols to a row, each panel
// panelH high, and returns the SVG document.
func renderGrid(plots []*plot.Plot, cols int, panelH vg.Length) ([]byte, error) {
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		for j := range cols {
			if k := i*cols + j; k < len(plots) {
				grid[i][j] = plots[k]
			}
		}
	}
	c := vgsvg.New(figW, panelH*vg.Length(rows))
	dc := draw.New(c)
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: gridPadX, PadY: vg.Points(14), PadTop: 4, PadBottom: 2}
	canvases := plot.Align(grid, t, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				drawPlot(p, canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pow2Ticks marks powers of two: load scales double from point to point.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Floor(math.Log2(min)), math.Ceil(math.Log2(max))
	every := math.Max(1, math.Ceil((hi-lo+1)/10)) // at most about ten labels
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Pow(2, e)
		t := plot.Tick{Value: v}
		if math.Mod(e, every) == 0 {
			t.Label = tickLabel(v, v, -1) // 2^20 is "1.048576M", not "1.04858e+06"
			if e < 0 {
				t.Label = "1/" + reciprocalLabel(1/v)
			}
		}
		ts = append(ts, t)
	}
	return ts
}

// reciprocalLabel writes d, a power of two, whole ("1048576", exact, as a
// scale is written) up to numfmt.Huge, past that in the shortest exponent
// form that reads back as d.
func reciprocalLabel(d float64) string {
	if d < numfmt.Huge {
		return strconv.FormatFloat(d, 'f', -1, 64)
	}
	return strconv.FormatFloat(d, 'g', -1, 64)
}

// log2Axis puts a on a log scale with power-of-two ticks when the positive
// values span a factor of 8 or more; it reports whether it did.
func log2Axis(a *plot.Axis, lo, hi float64) bool {
	if !(lo > 0) || hi/lo < 8 {
		return false
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = pow2Ticks{}
	a.Min, a.Max = lo/1.15, hi*1.15
	return true
}
