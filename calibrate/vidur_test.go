package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

const (
	vidurH100Llama2 = "testdata/vidur/h100/meta-llama/Llama-2-7b-hf/mlp.csv"
	vidurA100Llama3 = "testdata/vidur/a100/meta-llama/Meta-Llama-3-8B/mlp.csv"
)

func loadVidur(t testing.TB, path string) []VidurRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ParseVidurCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func vidurVsRoofline(t testing.TB, csvPath, arch, hw string, tokens []float64) (*VidurPrior, []PriorPoint) {
	t.Helper()
	cat := model.DefaultCatalog()
	a, err := cat.Arch(arch)
	if err != nil {
		t.Fatal(err)
	}
	h, err := cat.Hardware(hw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewVidurPrior(loadVidur(t, csvPath), VidurShapeOf(a, 1), a.Layers)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.NewRoofline(a, h, model.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return p, CompareVidurRoofline(p, r, tokens)
}

func TestVidurPriorLlama2H100(t *testing.T) {
	rows := loadVidur(t, vidurH100Llama2)
	if len(rows) != 1044 {
		t.Errorf("%d rows, want 1044", len(rows))
	}
	tokens := []float64{1, 64, 512, 4096}
	p, pts := vidurVsRoofline(t, vidurH100Llama2, "Llama-2-7B", "H100-SXM-80G", tokens)
	// Row num_tokens=1, TP=1: Σ non-emb medians = 0.175 ms per layer; × 32 layers.
	if got := p.StepSeconds(1); math.Abs(got-32*0.175e-3) > 1e-9 {
		t.Errorf("StepSeconds(1) = %g, want %g", got, 32*0.175e-3)
	}
	// num_tokens=4096 appears twice; the table averages the two rows.
	want4096 := 32 * (2.592 + 2.6085) / 2 * 1e-3 // per-layer sums of the two rows
	if got := p.StepSeconds(4096); math.Abs(got-want4096) > 1e-9 {
		t.Errorf("StepSeconds(4096) = %g, want %g", got, want4096)
	}
	if p.StepSeconds(0) != 0 || p.StepSeconds(0.5) != p.Seconds[0] {
		t.Error("below the table")
	}
	if mid := p.StepSeconds(3); !(mid >= p.StepSeconds(2) && mid <= p.StepSeconds(4)) && !(mid <= p.StepSeconds(2) && mid >= p.StepSeconds(4)) {
		t.Errorf("interpolation at 3 = %g", mid)
	}
	if p.StepSeconds(8192) <= p.StepSeconds(4096) {
		t.Error("no extrapolation above the table")
	}
	h, _ := model.DefaultCatalog().Hardware("H100-SXM-80G")
	a, _ := model.DefaultCatalog().Arch("Llama-2-7B")
	r, _ := model.NewRoofline(a, h, model.MemoryConfig{})
	c := p.Coefficients(r)
	if c.Dense[0].Value != p.StepSeconds(1) || c.Cp.Status != StatusOff || c.Cd.Status != StatusOff || c.Ca.Status != StatusPrior || c.Ck.Status != StatusPrior {
		t.Errorf("coefficients %+v", c)
	}
	var buf bytes.Buffer
	if err := WritePriorComparison(&buf, pts); err != nil {
		t.Fatal(err)
	}
	t.Logf("Llama-2-7B, H100, TP1 (line %.3f ms + %.4f ms/token, MdAPE %.1f%%, max %.1f%%):\n%s",
		p.Fixed*1e3, p.PerToken*1e3, 100*p.LineMdAPE, 100*p.LineMaxAPE, buf.String())
	// In the compute-bound regime the two priors agree to within 2×.
	last := pts[len(pts)-1]
	if r := last.VidurTable / last.Roofline; r < 0.5 || r > 2 {
		t.Errorf("at 4096 tokens vidur/roofline = %.2f", r)
	}

	// TP 2 rows exist and are faster per step at large batches.
	p2, err := NewVidurPrior(rows, VidurShapeOf(a, 2), a.Layers)
	if err != nil {
		t.Fatal(err)
	}
	if p2.StepSeconds(4096) >= p.StepSeconds(4096) {
		t.Errorf("TP2 %g >= TP1 %g at 4096 tokens", p2.StepSeconds(4096), p.StepSeconds(4096))
	}
}

func TestVidurPriorLlama3A100(t *testing.T) {
	p, pts := vidurVsRoofline(t, vidurA100Llama3, "Llama-3.1-8B", "A100-80G", []float64{1, 64, 512, 4096})
	var buf bytes.Buffer
	if err := WritePriorComparison(&buf, pts); err != nil {
		t.Fatal(err)
	}
	t.Logf("Llama-3-8B shape, A100-80G, TP1 (line %.3f ms + %.4f ms/token, MdAPE %.1f%%):\n%s",
		p.Fixed*1e3, p.PerToken*1e3, 100*p.LineMdAPE, buf.String())
	for _, pt := range pts {
		if !(pt.VidurTable > 0) || !(pt.Roofline > 0) {
			t.Errorf("point %+v", pt)
		}
	}
}

func TestVidurPriorErrors(t *testing.T) {
	rows := loadVidur(t, vidurH100Llama2)
	a, _ := model.DefaultCatalog().Arch("Llama-3.1-8B") // GQA: not in this file
	_, err := NewVidurPrior(rows, VidurShapeOf(a, 1), a.Layers)
	if err == nil || !strings.Contains(err.Error(), "KVHeads:32") {
		t.Errorf("shape mismatch: %v", err)
	}
	if _, err := NewVidurPrior(rows, rows[0].Shape, 0); err == nil {
		t.Error("0 layers: no error")
	}
	// Times each of which holds, but not once added up over the layers
	// or the rows of a token count: refused, not a line through +Inf.
	huge, err := ParseVidurCSV(strings.NewReader(vidurHeader +
		",1e308,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n" +
		",1e308,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n" +
		",0.2,0.02,0.1,0.4,0.06,0.2,32,32,4096,11008,32768,True,2,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := NewVidurPrior(huge, huge[0].Shape, 32); err != nil || !finite(p.Seconds[0]) || !finite(p.Fixed) || !finite(p.PerToken) {
		t.Errorf("two rows of 1e308 ms, 32 layers: %+v, %v; want a finite prior (3.2e306 s)", p, err)
	}
	if p, err := NewVidurPrior(huge, huge[0].Shape, 10000); err == nil || !strings.Contains(err.Error(), "1 tokens") {
		t.Errorf("1e308 ms × 10000 layers: %+v, %v; want an error naming the token count", p, err)
	}
}

const vidurHeader = "time_stats.emb.median,time_stats.attn_pre_proj.median,time_stats.attn_rope.median,time_stats.attn_post_proj.median," +
	"time_stats.mlp_up_proj.median,time_stats.mlp_act.median,time_stats.mlp_down_proj.median," +
	"n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"

func TestParseVidurCSV(t *testing.T) {
	ok := vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n" +
		"0.01,0.2,0.02,0.1,0.4,0.06,0.2,32,32,4096,11008,32768,False,2,1\n"
	rows, err := ParseVidurCSV(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].MedianMs[VidurEmb] != 0 || rows[1].Shape.GatedMLP || rows[0].MedianMs[VidurMLPUpProj] != 0.2 {
		t.Errorf("rows %+v", rows)
	}
	bad := []struct{ name, in, want string }{
		{"empty", "", "empty input"},
		{"missing column", strings.Replace(vidurHeader, "time_stats.mlp_act.median", "x", 1), "time_stats.mlp_act.median"},
		{"missing shape", strings.Replace(vidurHeader, "num_tokens", "n", 1), "num_tokens"},
		{"bad int", vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,0,1\n", "num_tokens = \"0\""},
		{"bad bool", vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,yes,1,1\n", "use_gated_mlp"},
		{"negative", vidurHeader + ",-0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n", "line 2: time_stats.attn_pre_proj.median"},
		{"nan", vidurHeader + ",NaN,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n", "attn_pre_proj"},
		{"empty required", vidurHeader + ",,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n", "attn_pre_proj"},
		{"short row", vidurHeader + "1,2\n", "line 2: 2 fields, want 15 as the header has"},
		{"column twice", strings.Replace(vidurHeader, "num_tokens", "num_tokens,num_tokens", 1) + ",0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1,1\n", "line 1: column num_tokens appears more than once"},
		{"no time", vidurHeader + ",0,0,0,0,0,0,32,32,4096,11008,32768,True,1,1\n", "line 2: every time_stats median is 0"},
	}
	for _, tc := range bad {
		_, err := ParseVidurCSV(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func FuzzVidurCSV(f *testing.F) {
	f.Add([]byte(vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1,32,32,4096,11008,32768,True,1,1\n" +
		",0.2,0.02,0.1,0.4,0.06,0.2,32,32,4096,11008,32768,True,8,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseVidurCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(rows) == 0 {
			t.Fatal("no rows and no error")
		}
		for _, r := range rows {
			if r.NumTokens <= 0 || r.NumTokens > math.MaxInt32 || r.Shape.TP <= 0 || r.Shape.Heads <= 0 {
				t.Fatalf("accepted row %+v", r)
			}
			if r.MedianMs[VidurAttnPreProj]+r.MedianMs[VidurAttnPostProj]+r.MedianMs[VidurMLPUpProj]+r.MedianMs[VidurMLPDownProj] == 0 {
				t.Fatalf("accepted a row without projection times: %+v", r)
			}
			for _, v := range r.MedianMs {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("accepted time %g", v)
				}
			}
		}
		p, err := NewVidurPrior(rows, rows[0].Shape, 32)
		if err != nil {
			return
		}
		for _, n := range []float64{0, 1, 7, 100, 1e6} {
			if v := p.StepSeconds(n); math.IsNaN(v) || v < 0 {
				t.Fatalf("StepSeconds(%g) = %g", n, v)
			}
		}
		if math.IsNaN(p.LineMdAPE) || math.IsNaN(p.LineMaxAPE) {
			t.Fatalf("line errors %g, %g", p.LineMdAPE, p.LineMaxAPE)
		}
		if math.IsNaN(p.Fixed) || math.IsNaN(p.PerToken) || p.Fixed < 0 || p.PerToken < 0 {
			t.Fatalf("line %g + %g", p.Fixed, p.PerToken)
		}
	})
}

// Rows that give the prior nothing to stand on are refused, naming the
// file, the line and the column, as a negative or all-zero time is: a
// row that measured no projection or MLP operator (only the embedding,
// which the prior leaves out, or only the rope), a number too large to
// hold, a token count past what a step can hold, and a file with a header
// and no rows.
func TestLoadVidurCSVRefusesUnusableRows(t *testing.T) {
	const shape = "32,32,4096,11008,32768,True"
	cases := []struct{ name, in string }{
		{"embedding only", vidurHeader + "0.5,0,0,0,0,0,0," + shape + ",1,1\n"},
		{"rope only", vidurHeader + "0.5,0,0.01,0,0,0,0," + shape + ",1,1\n"},
		{"time overflows", vidurHeader + ",1e400,0.01,0.05,0.2,0.03,0.1," + shape + ",1,1\n"},
		{"times overflow together", vidurHeader + ",1e308,0.01,0.05,1e308,0.03,0.1," + shape + ",1,1\n"},
		{"tokens past int", vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1," + shape + ",99999999999999999999,1\n"},
		{"tokens past a step", vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1," + shape + ",9007199254740993,1\n"},
		{"tp past int32", vidurHeader + ",0.1,0.01,0.05,0.2,0.03,0.1," + shape + ",1,4294967296\n"},
		{"no rows", vidurHeader},
	}
	want := []string{
		"line 2: time_stats.attn_pre_proj.median",
		"line 2: time_stats.attn_pre_proj.median",
		"line 2: time_stats.attn_pre_proj.median = \"1e400\"",
		"line 2: time_stats.",
		"line 2: num_tokens = \"99999999999999999999\"",
		"line 2: num_tokens = \"9007199254740993\"",
		"line 2: num_tensor_parallel_workers = \"4294967296\"",
		"line 1: a header and no rows",
	}
	dir := t.TempDir()
	for i, tc := range cases {
		path := filepath.Join(dir, fmt.Sprintf("%d.csv", i))
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := LoadVidurCSV(path)
		if err == nil {
			t.Errorf("%s: accepted %+v", tc.name, rows)
			continue
		}
		if !strings.Contains(err.Error(), path+": "+want[i]) {
			t.Errorf("%s: error %q, want %q", tc.name, err, path+": "+want[i])
		}
		// From a reader with no name, the same error without the file.
		if _, err := ParseVidurCSV(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), "vidur csv: "+want[i]) {
			t.Errorf("%s: from a reader: error %v, want %q", tc.name, err, want[i])
		}
	}
	// Every error of a file names it, the CSV reader's own too; a row of
	// another number of fields than the header says how many it wants.
	path := filepath.Join(dir, "short.csv")
	os.WriteFile(path, []byte(vidurHeader+"1,2\n"), 0o644)
	if _, err := LoadVidurCSV(path); err == nil || !strings.Contains(err.Error(), path+": line 2: 2 fields, want 15") {
		t.Errorf("short row: error %v, want the file, line and the header's 15 fields", err)
	}
	path = filepath.Join(dir, "quote.csv")
	os.WriteFile(path, []byte(vidurHeader+"\"1,2\n"), 0o644)
	if _, err := LoadVidurCSV(path); err == nil || !strings.Contains(err.Error(), path+": parse error on line 2, column 6") {
		t.Errorf("unterminated quote: error %v, want the file, line and column", err)
	}
	if _, err := LoadVidurCSV(filepath.Join(dir, "absent.csv")); err == nil || !strings.Contains(err.Error(), "absent.csv") {
		t.Errorf("absent file: error %v", err)
	}
	// The copied profiles load as before.
	if rows, err := LoadVidurCSV(vidurH100Llama2); err != nil || len(rows) != 1044 {
		t.Errorf("%s: %d rows, %v", vidurH100Llama2, len(rows), err)
	}
}
