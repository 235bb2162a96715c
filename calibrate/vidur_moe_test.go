package calibrate

import (
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
