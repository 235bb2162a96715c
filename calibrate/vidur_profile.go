package calibrate

import (
	"fmt"
	"time"

	"github.com/servesim/servesim/model"
)

// VidurEngine is the engine a profile built from a Vidur compute profile
// names: its step model was timed by Vidur's profiler, not on an engine.
const VidurEngine = "vidur-profile"

// RelationVidur is the lineage relation of the Vidur compute profile
// (mlp.csv) a prior profile was built from.
const RelationVidur = "vidur-profile"

// NewVidurProfile builds a prior profile for model a on devices h under
// m (zero fields take model.MemoryConfig.WithDefaults') from the Vidur
// compute profile at path: its step model is VidurPrior.Coefficients with
// the roofline of a, h and m, which it returns beside the prior. The
// profile fitted nothing (Quality.N 0), measured no KV capacity (the
// catalog's is used), cites no traces, and names the file and its SHA-256
// in Lineage. Vidur times fp16 weights, so m's weight precision must be
// fp16 or bf16 (as fast on the GPUs it profiles); errors name path.
func NewVidurProfile(path string, a model.Arch, h model.Hardware, m model.MemoryConfig, now time.Time) (*Profile, *VidurPrior, model.Roofline, error) {
	fail := func(err error) (*Profile, *VidurPrior, model.Roofline, error) {
		return nil, nil, model.Roofline{}, fmt.Errorf("calibrate: vidur profile %s: %w", path, err)
	}
	m = m.WithDefaults(a)
	if wp := m.WeightPrecision; wp != model.FP16 && wp != model.BF16 {
		return fail(fmt.Errorf("precision %s: Vidur times fp16 weights, want fp16 or bf16", wp))
	}
	roof, err := model.NewRoofline(a, h, m)
	if err != nil {
		return fail(err)
	}
	rows, err := LoadVidurCSV(path) // its errors name path
	if err != nil {
		return nil, nil, model.Roofline{}, err
	}
	prior, err := NewVidurPrior(rows, VidurShapeOf(a, m.TensorParallel), a.Layers)
	if err != nil {
		return fail(fmt.Errorf("model %s at tensor parallelism %d: %w", a.Name, m.TensorParallel, err))
	}
	sum, err := FileSHA256(path)
	if err != nil {
		return nil, nil, model.Roofline{}, err
	}
	p := &Profile{
		Version: ProfileVersion, Engine: VidurEngine, EngineArgs: []string{}, Model: a.Name,
		Precision: string(m.WeightPrecision), Device: h.Name, TensorParallel: m.TensorParallel,
		Step: prior.Coefficients(roof), CreatedAt: now.UTC(), Traces: []TraceRef{},
		Lineage: []LineageEntry{{Relation: RelationVidur, Path: path, SHA256: sum}},
	}
	if err := p.Validate(); err != nil {
		return fail(err)
	}
	return p, prior, roof, nil
}
