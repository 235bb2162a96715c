package calibrate

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
)

// A mixture-of-experts model shares its attention and per-expert FFN
// shape with a dense model's profile (Mixtral-8x7B with Llama-3-8B), but
// its MLP runs several experts per token: the dense rows are no prior for
// it.
func TestVidurPriorRefusesMoE(t *testing.T) {
	a, err := model.DefaultCatalog().Arch("Mixtral-8x7B")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewVidurPrior(loadVidur(t, vidurA100Llama3), VidurShapeOf(a, 1), a.Layers)
	if err == nil {
		t.Fatalf("Mixtral-8x7B from the dense Llama-3-8B profile: prior %.2f ms at 1 token, want an error", p.StepSeconds(1)*1e3)
	}
	if !strings.Contains(err.Error(), "Experts:8") {
		t.Errorf("error %v, want it to name the shape's 8 experts", err)
	}
}

// The Llama-3-8B table is the raw rows' per-layer medians (emb left out)
// summed by hand, × 32 layers; 4096 tokens has two rows, averaged. These
// are the README's figures.
func TestVidurPriorLlama3A100ByHand(t *testing.T) {
	a, _ := model.DefaultCatalog().Arch("Llama-3.1-8B")
	p, err := NewVidurPrior(loadVidur(t, vidurA100Llama3), VidurShapeOf(a, 1), a.Layers)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tokens, perLayerMs float64 }{
		{1, 0.303}, {64, 0.351}, {512, 1.0825}, {4096, (8.529 + 8.549) / 2},
	} {
		if got, want := p.StepSeconds(c.tokens), 32*c.perLayerMs*1e-3; math.Abs(got-want) > 1e-9 {
			t.Errorf("StepSeconds(%g) = %g, want %g", c.tokens, got, want)
		}
	}
}
