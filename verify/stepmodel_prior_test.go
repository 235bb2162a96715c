package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/model"
)

// A profile whose coefficients come from a prior (Vidur's operator
// profile) fitted nothing: it has no R² to show, and 0 would read as a fit
// that explains nothing.
func TestStepModelNamesAPriorProfileUnfitted(t *testing.T) {
	rows, err := calibrate.LoadVidurCSV("../calibrate/testdata/vidur/h100/meta-llama/Llama-2-7b-hf/mlp.csv")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := model.DefaultCatalog().Arch("Llama-2-7B")
	h, _ := model.DefaultCatalog().Hardware("H100-SXM-80G")
	vp, err := calibrate.NewVidurPrior(rows, calibrate.VidurShapeOf(a, 1), a.Layers)
	if err != nil {
		t.Fatal(err)
	}
	roof, err := model.NewRoofline(a, h, model.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	prof := &calibrate.Profile{Version: calibrate.ProfileVersion, Model: "Llama-2-7B", Device: "H100-SXM-80G", TensorParallel: 1, Step: vp.Coefficients(roof), CreatedAt: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	if err := prof.Validate(); err != nil {
		t.Fatal(err)
	}
	_, desc, err := StepModel(prof, "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(desc, "R²") || !strings.Contains(desc, "prior") {
		t.Errorf("description %q, want it to say the coefficients are a prior, with no R²", desc)
	}
}
