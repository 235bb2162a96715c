package calibrate

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/model"
)

// vidurProfileFor builds the prior profile of the catalog's model and
// device from the Vidur file at path, bf16 on one device.
func vidurProfileFor(t *testing.T, path, arch, hw string) (*Profile, *VidurPrior, error) {
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
	p, prior, _, err := NewVidurProfile(path, a, h, model.MemoryConfig{}, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	return p, prior, err
}

// The dense curve is Vidur's table at each knot, not its fitted line:
// the line under-states the weight-bound steps of small batches. C0
// holds the step overhead alone, and Cp and Cd, which would count the
// dense layers again, are off.
func TestVidurProfileDenseIsTheTable(t *testing.T) {
	p, prior, err := vidurProfileFor(t, vidurH100Llama2, "Llama-2-7B", "H100-SXM-80G")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range p.Step.Dense {
		if want := prior.StepSeconds(DenseKnots[i]); d.Value != want || d.Lo != want || d.Hi != want || d.Status != StatusPrior {
			t.Errorf("dense@%g = %+v, want %g s with status prior", DenseKnots[i], d, want)
		}
	}
	st := p.Step
	if st.C0.Value != model.StepOverheadSec || st.C0.Status != StatusPrior {
		t.Errorf("c0 = %+v, want the roofline's overhead %g s as a prior", st.C0, model.StepOverheadSec)
	}
	for _, c := range []*Coef{&st.Cp, &st.Cd, &st.Crp, &st.Crd, &st.Cr, &st.Cq} {
		if c.Status != StatusOff || c.Value != 0 {
			t.Errorf("coefficient %+v, want off", *c)
		}
	}
	if got := prior.Rows; got != 261 {
		t.Errorf("%d rows matched, want the file's 261 at TP 1", got)
	}
}

// A step is priced as the simulator prices it: a 1-token decode with no
// context is the table's 1-token time plus the overhead, and each token
// of context a decoding sequence reads adds the catalog's KV bytes per
// token over the achievable memory bandwidth.
func TestVidurProfileDecodeStep(t *testing.T) {
	p, prior, err := vidurProfileFor(t, vidurH100Llama2, "Llama-2-7B", "H100-SXM-80G")
	if err != nil {
		t.Fatal(err)
	}
	one := p.Step.StepSeconds(Observation{DecodeSeqs: 1})
	if want := prior.StepSeconds(1) + model.StepOverheadSec; math.Abs(one-want) > 1e-15 {
		t.Errorf("1-token decode, no context: %g s, want the table's %g + overhead %g", one, prior.StepSeconds(1), model.StepOverheadSec)
	}
	cat := model.DefaultCatalog()
	a, _ := cat.Arch("Llama-2-7B")
	h, _ := cat.Hardware("H100-SXM-80G")
	perToken := a.KVBytesPerTokenPerDevice(model.BF16, 1) / (h.BandwidthBytesPerSec * model.BandwidthEfficiency)
	for _, ctx := range []float64{1, 1000, 4000} {
		got := p.Step.StepSeconds(Observation{DecodeSeqs: 1, DecodeContext: ctx}) - one
		if want := perToken * ctx; math.Abs(got-want) > 1e-12*want+1e-15 {
			t.Errorf("decode at %g tokens of context costs %g s more than at none, want %g (KV bytes / bandwidth)", ctx, got, want)
		}
	}
	// A prompt's attention: per (prompt token × context token), the
	// catalog's attention FLOPs at the achievable FLOP/s.
	peak, _ := h.PeakFLOPS(model.BF16)
	if want := a.AttentionFLOPsPerQueryCtx() / (peak * model.ComputeEfficiency); math.Abs(p.Step.Ca.Value-want) > 1e-12*want {
		t.Errorf("ca = %g, want %g", p.Step.Ca.Value, want)
	}
}

// The profile says what it is (a prior of the flags' model and device,
// nothing measured) and where it came from, and survives Save and Load.
func TestVidurProfileRoundTrip(t *testing.T) {
	p, _, err := vidurProfileFor(t, vidurH100Llama2, "Llama-2-7B", "H100-SXM-80G")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(vidurH100Llama2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Quality.N != 0 || p.KV != nil || len(p.Traces) != 0 || p.Method != nil || p.Engine != VidurEngine ||
		p.Model != "Llama-2-7B" || p.Device != "H100-SXM-80G" || p.Precision != "bf16" || p.TensorParallel != 1 {
		t.Errorf("profile %+v", p)
	}
	if want := []LineageEntry{{Relation: RelationVidur, Path: vidurH100Llama2, SHA256: sum}}; !reflect.DeepEqual(p.Lineage, want) {
		t.Errorf("lineage %+v, want %+v", p.Lineage, want)
	}
	path := filepath.Join(t.TempDir(), "prior.json")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("loaded %+v\nwant %+v", back, p)
	}
}

// A model whose shape the file lacks, or a precision Vidur did not time,
// is refused naming the file and what it lacks.
func TestVidurProfileRefuses(t *testing.T) {
	_, _, err := vidurProfileFor(t, vidurH100Llama2, "Llama-3.1-8B", "H100-SXM-80G")
	if err == nil || !strings.Contains(err.Error(), vidurH100Llama2) || !strings.Contains(err.Error(), "KVHeads:8") {
		t.Errorf("Llama-3.1-8B from a Llama-2-7B file: %v, want an error naming the file and the shape", err)
	}
	cat := model.DefaultCatalog()
	a, _ := cat.Arch("Llama-2-7B")
	h, _ := cat.Hardware("H100-SXM-80G")
	_, _, _, err = NewVidurProfile(vidurH100Llama2, a, h, model.MemoryConfig{WeightPrecision: model.FP8}, time.Now())
	if err == nil || !strings.Contains(err.Error(), vidurH100Llama2) || !strings.Contains(err.Error(), "fp8") {
		t.Errorf("fp8: %v, want an error naming the file and the precision", err)
	}
}
