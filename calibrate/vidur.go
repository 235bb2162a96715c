package calibrate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/model"
	"gonum.org/v1/gonum/mat"
)

// VidurOp indexes the per-layer operators of a Vidur compute profile
// (mlp.csv): github.com/microsoft/vidur, data/profiling/compute/<device>/<model>/mlp.csv.
type VidurOp int

// The operators, in the column order of Vidur's mlp.csv.
const (
	VidurEmb VidurOp = iota
	VidurInputLayernorm
	VidurAttnPreProj
	VidurAttnRope
	VidurAttnPostProj
	VidurPostAttentionLayernorm
	VidurMLPUpProj
	VidurMLPAct
	VidurMLPDownProj
	VidurAdd
	NumVidurOps = 10
)

var vidurOpNames = [NumVidurOps]string{
	"emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
	"post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add",
}

// vidurOptional are the operators Vidur's predictor fills with 0 when the
// column is absent or empty (sklearn_execution_time_predictor.py,
// _load_compute_df); emb is not used by its step time at all.
var vidurOptional = [NumVidurOps]bool{
	VidurEmb: true, VidurInputLayernorm: true, VidurPostAttentionLayernorm: true, VidurAdd: true,
}

func (o VidurOp) String() string {
	if o < 0 || int(o) >= NumVidurOps {
		return fmt.Sprintf("VidurOp(%d)", int(o))
	}
	return vidurOpNames[o]
}

// VidurShape is the model shape and tensor parallelism a Vidur profile
// row was measured for (its shape columns).
type VidurShape struct {
	Heads        int  // n_head
	KVHeads      int  // n_kv_head
	Hidden       int  // n_embd
	Intermediate int  // n_expanded_embd
	Vocab        int  // vocab_size; 0 matches any (Vidur pads vocabularies, e.g. 32768 for Llama-2's 32000)
	GatedMLP     bool // use_gated_mlp
	TP           int  // num_tensor_parallel_workers
	// Experts is the MoE expert count; Vidur profiles dense models only,
	// so every row has 0 and no mixture-of-experts shape matches one.
	Experts int
}

// VidurShapeOf is the Vidur shape of a Llama-style (gated-MLP) arch at
// tensor parallelism tp, with Vocab 0 (any): only the embedding, which the
// prior does not use, depends on the vocabulary. An MoE arch keeps its
// expert count, so a dense profile of the same widths (Mixtral-8x7B's are
// Llama-3-8B's) does not stand in for its several experts per token.
func VidurShapeOf(a model.Arch, tp int) VidurShape {
	return VidurShape{Heads: a.Heads, KVHeads: a.KVHeads, Hidden: a.Hidden, Intermediate: a.Intermediate, GatedMLP: true, TP: tp, Experts: a.Experts}
}

func (s VidurShape) matches(r VidurShape) bool {
	return s.Heads == r.Heads && s.KVHeads == r.KVHeads && s.Hidden == r.Hidden &&
		s.Intermediate == r.Intermediate && s.GatedMLP == r.GatedMLP && s.TP == r.TP && s.Experts == r.Experts &&
		(s.Vocab == 0 || s.Vocab == r.Vocab)
}

// VidurRow is one row of a Vidur compute profile: the median time in
// milliseconds of each operator for ONE transformer layer (Vidur multiplies
// the block time by the number of layers: vidur/entities/execution_time.py,
// model_time) at NumTokens tokens in the batch.
type VidurRow struct {
	Shape     VidurShape
	NumTokens int
	MedianMs  [NumVidurOps]float64 // time_stats.<op>.median
}

var vidurShapeCols = []string{
	"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "vocab_size", "use_gated_mlp",
	"num_tokens", "num_tensor_parallel_workers",
}

// vidurLinear are the operators that multiply by the layer's weights: a
// row with none of them measured is no layer's time (the embedding alone,
// which the prior leaves out, or the rope alone).
var vidurLinear = []VidurOp{VidurAttnPreProj, VidurAttnPostProj, VidurMLPUpProj, VidurMLPDownProj}

// maxVidurCount bounds the shape and token counts of a Vidur row: token
// counts are int32 in traces and the simulator, and the prior tabulates
// them as float64, which holds every integer up to it exactly.
const maxVidurCount = math.MaxInt32

// LoadVidurCSV reads the Vidur compute profile (mlp.csv) at path; see
// ParseVidurCSV. Its errors name the file.
func LoadVidurCSV(path string) ([]VidurRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("calibrate: vidur csv: %w", err)
	}
	defer f.Close()
	return parseVidurCSV(f, path)
}

// ParseVidurCSV reads a Vidur compute profile (mlp.csv). It needs the
// shape columns and the time_stats.<op>.median columns of the projection,
// rope and MLP operators; the layernorm, add and emb medians may be absent
// or empty (read as 0, as Vidur does). Other columns are ignored. It needs
// at least one row. Counts must be positive integers up to 2³¹−1, times
// finite and >= 0, not all 0, with the time of at least one projection
// (attention in and out, MLP up and down) and a finite sum; errors name
// the line and column, and the file when r has a Name (an *os.File).
func ParseVidurCSV(r io.Reader) ([]VidurRow, error) {
	name := ""
	if f, ok := r.(interface{ Name() string }); ok {
		name = f.Name()
	}
	return parseVidurCSV(r, name)
}

// parseVidurCSV is ParseVidurCSV of the file name ("" for none).
func parseVidurCSV(r io.Reader, name string) ([]VidurRow, error) {
	fail := func(format string, args ...any) error {
		if name != "" {
			format = "%s: " + format
			args = append([]any{name}, args...)
		}
		return fmt.Errorf("calibrate: vidur csv: "+format, args...)
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fail("empty input")
	}
	if err != nil {
		return nil, fail("header: %w", err)
	}
	headerLine, _ := cr.FieldPos(0)
	columns := len(header) // header's array is reused by the rows
	idx := map[string]int{}
	twice := map[string]bool{} // a column named twice: which one was meant is unknown
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, ok := idx[h]; ok {
			twice[h] = true
		}
		idx[h] = i
	}
	shapeIdx := make([]int, len(vidurShapeCols))
	var missing []string
	for i, c := range vidurShapeCols {
		j, ok := idx[c]
		if !ok {
			missing = append(missing, c)
		}
		shapeIdx[i] = j
	}
	var opIdx [NumVidurOps]int
	for o := range NumVidurOps {
		c := vidurColumn(VidurOp(o))
		j, ok := idx[c]
		if !ok {
			j = -1
			if !vidurOptional[o] {
				missing = append(missing, c)
			}
		}
		opIdx[o] = j
	}
	if len(missing) > 0 {
		return nil, fail("missing columns: %s", strings.Join(missing, ", "))
	}
	used := slices.Clone(vidurShapeCols)
	for o := range NumVidurOps {
		used = append(used, vidurColumn(VidurOp(o)))
	}
	for _, c := range used {
		if twice[c] {
			return nil, fail("line %d: column %s appears more than once, want it once", headerLine, c)
		}
	}

	var rows []VidurRow
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		// csv says only "wrong number of fields": say how many, and how
		// many the header has.
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			return nil, fail("line %d: %d fields, want %d as the header has", pe.Line, len(rec), columns)
		}
		if err != nil {
			return nil, fail("%w", err)
		}
		line, _ := cr.FieldPos(0)
		var row VidurRow
		ints := make([]int, len(vidurShapeCols))
		for i, c := range vidurShapeCols {
			v := strings.TrimSpace(rec[shapeIdx[i]])
			if c == "use_gated_mlp" {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return nil, fail("line %d: %s = %q, want True or False", line, c, v)
				}
				row.Shape.GatedMLP = b
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > maxVidurCount {
				return nil, fail("line %d: %s = %q, want a positive integer up to %d", line, c, v, maxVidurCount)
			}
			ints[i] = n
		}
		row.Shape.Heads, row.Shape.KVHeads, row.Shape.Hidden, row.Shape.Intermediate = ints[0], ints[1], ints[2], ints[3]
		row.Shape.Vocab, row.NumTokens, row.Shape.TP = ints[4], ints[6], ints[7]
		total := 0.0
		for o := range NumVidurOps {
			if opIdx[o] < 0 {
				continue
			}
			v := strings.TrimSpace(rec[opIdx[o]])
			if v == "" && vidurOptional[o] {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !finite(f) || f < 0 {
				return nil, fail("line %d: %s = %q, want a finite time >= 0 in ms", line, vidurColumn(VidurOp(o)), v)
			}
			// The prior adds a row's times up: each may hold and their sum not.
			if total += f; !finite(total) {
				return nil, fail("line %d: %s = %q takes the row's total time past the largest number, want a finite time in ms", line, vidurColumn(VidurOp(o)), v)
			}
			row.MedianMs[o] = f
		}
		// A row that took no time is no measurement: the line's relative
		// errors, weighted by 1/time², would be infinite.
		if row.MedianMs == ([NumVidurOps]float64{}) {
			return nil, fail("line %d: every time_stats median is 0, want a measured time", line)
		}
		// Nor is one that timed none of the layer's projections: the
		// embedding alone is a time the prior leaves out (a step of 0 s),
		// the rope or a layernorm alone no layer's.
		if !slices.ContainsFunc(vidurLinear, func(o VidurOp) bool { return row.MedianMs[o] > 0 }) {
			cols := make([]string, len(vidurLinear))
			for i, o := range vidurLinear {
				cols[i] = vidurColumn(o)
			}
			return nil, fail("line %d: %s are all 0, want the measured time of the layer's projections", line, strings.Join(cols, ", "))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fail("line %d: a header and no rows, want at least one measured row", headerLine)
	}
	return rows, nil
}

// vidurColumn is the name of o's median column in mlp.csv.
func vidurColumn(o VidurOp) string { return "time_stats." + o.String() + ".median" }

// VidurPrior is the non-attention part of a step-time prior built from a
// Vidur compute profile: the time of a step's dense layers (projections,
// rope, MLP, layernorms, residual add; all layers) as a function of the
// number of tokens in the step, prefill and decode alike. It excludes
// attention kernels, KV-cache writes, tensor-parallel communication, the
// embedding and LM head, and CPU overheads (scheduling, sampling), as
// Vidur's model_time does for the operators here.
type VidurPrior struct {
	Shape  VidurShape
	Layers int
	Rows   int // the profile's rows that matched Shape
	// Tokens and Seconds tabulate the step's non-attention time (seconds,
	// all layers) at each profiled token count, ascending; duplicate rows
	// for a token count are averaged.
	Tokens, Seconds []float64
	// Fixed + PerToken·tokens is the least-relative-squares line through the
	// table (NNLS, weights 1/Seconds²), in seconds and seconds per token.
	Fixed, PerToken float64
	// LineMdAPE and LineMaxAPE are the median and largest relative error
	// of the line against the table.
	LineMdAPE, LineMaxAPE float64
}

// NewVidurPrior builds the prior for shape from rows, for a model of the
// given number of layers (each row's per-layer time × layers). It errors
// when no row matches the shape (naming the shapes present) or when fewer
// than two token counts remain.
func NewVidurPrior(rows []VidurRow, shape VidurShape, layers int) (*VidurPrior, error) {
	if layers <= 0 {
		return nil, fmt.Errorf("calibrate: vidur prior: layers = %d, must be > 0", layers)
	}
	sum := map[int]float64{}
	cnt := map[int]int{}
	shapes := map[VidurShape]bool{}
	matched := 0
	for _, r := range rows {
		shapes[r.Shape] = true
		if !shape.matches(r.Shape) {
			continue
		}
		matched++
		var ms float64
		for o := range NumVidurOps {
			if VidurOp(o) != VidurEmb {
				ms += r.MedianMs[o]
			}
		}
		sum[r.NumTokens] += ms * 1e-3 // seconds: rows of times that hold add up within range
		cnt[r.NumTokens]++
	}
	if len(sum) < 2 {
		var have []string
		for s := range shapes {
			have = append(have, fmt.Sprintf("%+v", s))
		}
		sort.Strings(have)
		return nil, fmt.Errorf("calibrate: vidur prior: %d token counts for shape %+v (need 2); profile has shapes %s", len(sum), shape, strings.Join(have, ", "))
	}
	p := &VidurPrior{Shape: shape, Layers: layers, Rows: matched}
	for n := range sum {
		p.Tokens = append(p.Tokens, float64(n))
	}
	sort.Float64s(p.Tokens)
	for _, n := range p.Tokens {
		k := int(n)
		sec := sum[k] / float64(cnt[k]) * float64(layers)
		if !finite(sec) {
			return nil, fmt.Errorf("calibrate: vidur prior: %d tokens: %d layers of %g s each take longer than the largest number", k, layers, sum[k]/float64(cnt[k]))
		}
		p.Seconds = append(p.Seconds, sec)
	}

	m := len(p.Tokens)
	a := mat.NewDense(m, 2, nil)
	b := mat.NewVecDense(m, nil)
	for i := range m {
		w := 1 / math.Max(p.Seconds[i], 1e-12)
		a.Set(i, 0, w)
		a.Set(i, 1, w*p.Tokens[i])
		b.SetVec(i, w*p.Seconds[i])
	}
	// Scale columns to unit norm for NNLS.
	s0, s1 := mat.Norm(a.ColView(0), 2), mat.Norm(a.ColView(1), 2)
	for i := range m {
		a.Set(i, 0, a.At(i, 0)/s0)
		a.Set(i, 1, a.At(i, 1)/s1)
	}
	var x mat.VecDense
	if _, err := NNLS(&x, a, b, nil); err != nil {
		return nil, fmt.Errorf("calibrate: vidur prior: line fit: %w", err)
	}
	p.Fixed, p.PerToken = x.AtVec(0)/s0, x.AtVec(1)/s1
	ape := make([]float64, m)
	for i := range m {
		ape[i] = math.Abs(p.Fixed+p.PerToken*p.Tokens[i]-p.Seconds[i]) / p.Seconds[i]
		p.LineMaxAPE = math.Max(p.LineMaxAPE, ape[i])
	}
	p.LineMdAPE = median(ape)
	return p, nil
}

// StepSeconds is the tabulated non-attention time of a step with tokens
// tokens (prefill + decode), interpolated linearly between profiled token
// counts; below the smallest count it is that count's time (the
// weight-bound floor), above the largest it extends with PerToken; 0
// tokens take 0 s.
func (p *VidurPrior) StepSeconds(tokens float64) float64 {
	if !(tokens > 0) {
		return 0
	}
	n := len(p.Tokens)
	if tokens <= p.Tokens[0] {
		return p.Seconds[0]
	}
	if tokens >= p.Tokens[n-1] {
		return p.Seconds[n-1] + p.PerToken*(tokens-p.Tokens[n-1])
	}
	i := sort.SearchFloat64s(p.Tokens, tokens) // p.Tokens[i-1] < tokens <= p.Tokens[i]
	t0, t1 := p.Tokens[i-1], p.Tokens[i]
	f := (tokens - t0) / (t1 - t0)
	return p.Seconds[i-1] + f*(p.Seconds[i]-p.Seconds[i-1])
}

// Coefficients is the step model of the prior, completed by roofline r
// of the same model, devices and precision for what Vidur's operators do
// not time:
//   - the dense curve is the table (StepSeconds) at each of DenseKnots,
//     not the line, which under-states the weight-bound steps of small
//     decode batches, where most steps fall (Llama-2-7B's 1-token step
//     by 15% on H100); Cp and Cd, which would count the dense layers
//     again, are off;
//   - Ca, prefill attention per (prompt token × context token), is r's
//     attention FLOPs at its FLOP/s, and Ck, reading a decoding
//     sequence's cache per context token, r's KV bytes per token at its
//     bandwidth (decode attention is memory-bound: 30–250× its
//     arithmetic for the catalog's 7–8B models on A100 and H100);
//   - C0 is r's OverheadSec: the operator times carry no host-side
//     scheduling or sampling, which every step pays.
//
// All are StatusPrior; the rest are off. KV-cache writes and
// tensor-parallel communication are left out, as both priors leave them
// out of a step's time.
func (p *VidurPrior) Coefficients(r model.Roofline) StepCoefficients {
	pr := func(v float64) Coef { return Coef{Value: v, Lo: v, Hi: v, Status: StatusPrior} }
	off := Coef{Status: StatusOff}
	c := StepCoefficients{
		C0: pr(r.OverheadSec), Cp: off, Cd: off,
		Ca: pr(r.AttnFLOPsPerQueryCtx / r.FLOPS), Ck: pr(r.KVBytesPerToken / r.BandwidthBytesPerSec),
		Crp: off, Crd: off, Cr: off, Cq: off,
	}
	for i, n := range DenseKnots {
		c.Dense[i] = DensePoint{Tokens: n, Coef: pr(p.StepSeconds(n))}
	}
	return c
}

// PriorPoint compares the non-attention step time of two priors at one
// token count. Times are seconds.
type PriorPoint struct {
	Tokens      float64
	VidurTable  float64 // VidurPrior.StepSeconds
	VidurLine   float64 // Fixed + PerToken·tokens
	Roofline    float64 // max(FLOPsPerToken·tokens/FLOPS, WeightBytes/bandwidth), no overhead
	RooflineAll float64 // model.Roofline.StepSeconds(tokens, 0, 0, 0, 0): adds KV writes and OverheadSec
}

// CompareVidurRoofline evaluates the Vidur prior and the roofline prior of
// the same model and device at each token count. Both are for a step of
// tokens tokens with no attention. Roofline is the dense part only:
// compute at FLOPsPerToken (which counts the LM head and embedding, about
// 4% of a 7B model's weights, that Vidur's operators do not) or reading
// every weight once, whichever is longer. It excludes the roofline's fixed
// OverheadSec, which Vidur models separately as CPU overhead; RooflineAll
// includes it.
func CompareVidurRoofline(p *VidurPrior, r model.Roofline, tokens []float64) []PriorPoint {
	out := make([]PriorPoint, len(tokens))
	for i, n := range tokens {
		out[i] = PriorPoint{
			Tokens:      n,
			VidurTable:  p.StepSeconds(n),
			VidurLine:   p.Fixed + p.PerToken*n,
			Roofline:    math.Max(r.FLOPsPerToken*n/r.FLOPS, r.WeightBytes/r.BandwidthBytesPerSec),
			RooflineAll: r.StepSeconds(n, 0, 0, 0, 0),
		}
	}
	return out
}

// WritePriorComparison writes pts as an aligned text table in ms.
func WritePriorComparison(w io.Writer, pts []PriorPoint) error {
	if _, err := fmt.Fprintf(w, "%8s %12s %12s %12s %14s\n", "tokens", "vidur_ms", "vidur_line", "roofline_ms", "roofline+ovh"); err != nil {
		return err
	}
	for _, p := range pts {
		if _, err := fmt.Fprintf(w, "%8.0f %12.3f %12.3f %12.3f %14.3f\n", p.Tokens,
			p.VidurTable*1e3, p.VidurLine*1e3, p.Roofline*1e3, p.RooflineAll*1e3); err != nil {
			return err
		}
	}
	return nil
}
