package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/atomicfile"
	"github.com/servesim/servesim/internal/relpath"
	"github.com/servesim/servesim/model"
)

// vidurFlags are the calibrate flags that go with --vidur-profile; the
// others shape live runs or fits, of which it does neither.
var vidurFlags = map[string]bool{"vidur-profile": true, "model": true, "device": true, "tensor-parallel": true, "precision": true, "out": true}

// runVidurProfile writes the prior profile of --model on --device from
// the Vidur compute profile --vidur-profile and prints its dense curve
// beside the roofline prior's.
func runVidurProfile(c *cli.Context) error {
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; c.IsSet(name) && !vidurFlags[name] {
			return usageErrorf("calibrate: --%s and --vidur-profile do not go together: --vidur-profile builds a prior from Vidur's operator times, with no engine to run or runs to fit", name)
		}
	}
	if err := requireFlags(c, "model", "device", "out"); err != nil {
		return err
	}
	if err := checkInputs("calibrate", wantFile, namedPath{"--vidur-profile", c.String("vidur-profile")}); err != nil {
		return err
	}
	cat := model.DefaultCatalog()
	a, err := cat.Arch(c.String("model"))
	if err != nil {
		return usageErrorf("calibrate: --model: %v", err)
	}
	h, err := cat.Hardware(c.String("device"))
	if err != nil {
		return usageErrorf("calibrate: --device: %v", err)
	}
	var m model.MemoryConfig
	if p := c.String("precision"); p != "" {
		if m.WeightPrecision, err = model.ParsePrecision(p); err != nil {
			return usageErrorf("calibrate: --precision: %v", err)
		}
		// Vidur times fp16 weights: another precision is a usage error,
		// as an unknown one is, not a failed build.
		if wp := m.WeightPrecision; wp != model.FP16 && wp != model.BF16 {
			return usageErrorf("calibrate: --precision %s: Vidur times fp16 weights, want fp16 or bf16", wp)
		}
	}
	if m.TensorParallel = c.Int("tensor-parallel"); m.TensorParallel < 0 {
		return usageErrorf("calibrate: --tensor-parallel %d: want ≥ 1 (0 = 1)", m.TensorParallel)
	}
	if tp := m.TensorParallel; tp > 1 && !a.SplitsAcross(tp) {
		return usageErrorf("calibrate: --tensor-parallel %d cannot split %s's %d heads and %d KV heads (it must divide the heads, and divide or be a multiple of the KV heads)",
			tp, a.Name, a.Heads, a.KVHeads)
	}
	out := c.String("out")
	csvPath := c.String("vidur-profile")
	if err := checkOutputs("calibrate", []namedPath{{"--out", out}}, []namedPath{{"--vidur-profile", csvPath}}); err != nil {
		return err
	}
	if err := atomicfile.CheckFile(out); err != nil {
		return usageErrorf("calibrate: --out: %v", err)
	}

	p, prior, roof, err := calibrate.NewVidurProfile(csvPath, a, h, m, time.Now())
	if err != nil {
		return err
	}
	// The profile names its source from its own directory, as it names
	// traces and parent profiles.
	p.Lineage[0].Path = relpath.From(filepath.Dir(out), csvPath)
	w := c.App.Writer
	fmt.Fprintf(w, "%s: %d rows for %s at tensor parallelism %d (%d token counts, %d layers); per step, ms:\n",
		csvPath, prior.Rows, a.Name, p.TensorParallel, len(prior.Tokens), prior.Layers)
	if err := calibrate.WritePriorComparison(w, calibrate.CompareVidurRoofline(prior, roof, []float64{1, 512, 4096})); err != nil {
		return err
	}
	st := p.Step
	fmt.Fprintf(w, "attention from the catalog (%s, %s): %.4g ns per context token a decoding sequence reads, %.4g ns per prompt token × context token; step overhead %.1f ms\n",
		h.Name, p.Precision, st.Ck.Value*1e9, st.Ca.Value*1e9, st.C0.Value*1e3)
	// A profile renamed into place whose directory was not synced is
	// written: it is said so, and the error returned after.
	saveErr := p.Save(out)
	if saveErr != nil && !atomicfile.OnlyNotSynced(saveErr) {
		return saveErr
	}
	fmt.Fprintf(w, "wrote %s: a prior (dense from Vidur's table, attention from the catalog), for `servesim simulate --profile`\n", out)
	return saveErr
}
