package verify

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/servesim/servesim/internal/relpath"
)

// paths are the addresses of the file paths res holds: the input trace,
// the slice, the profile, each candidate's measured and simulated traces,
// engine logs and GPU samples, and the refit's profiles and traces. The
// refit's missing traces are left out: they are the parent profile's
// names, as it wrote them.
func (res *Result) paths() []*string {
	ps := []*string{&res.Trace, &res.Input, &res.Profile}
	rep := func(r *Repeat) {
		ps = append(ps, &r.Trace, &r.EngineLog)
		if r.GPU != nil {
			ps = append(ps, &r.GPU.CSV)
		}
	}
	for i := range res.Candidates {
		c := &res.Candidates[i]
		rep(&c.Repeat)
		ps = append(ps, &c.SimTrace)
		for k := range c.Repeats {
			rep(&c.Repeats[k])
		}
	}
	if r := res.Refit; r != nil {
		ps = append(ps, &r.Out, &r.Parent)
		for i := range r.NewTraces {
			ps = append(ps, &r.NewTraces[i])
		}
	}
	return ps
}

// clone copies res deep enough that its paths can be changed without
// changing res's.
func (res *Result) clone() *Result {
	c := *res
	c.Candidates = slices.Clone(res.Candidates)
	gpu := func(r *Repeat) {
		if r.GPU != nil {
			g := *r.GPU
			r.GPU = &g
		}
	}
	for i := range c.Candidates {
		cd := &c.Candidates[i]
		cd.Repeats = slices.Clone(cd.Repeats)
		gpu(&cd.Repeat)
		for k := range cd.Repeats {
			gpu(&cd.Repeats[k])
		}
	}
	if res.Refit != nil {
		r := *res.Refit
		r.NewTraces = slices.Clone(r.NewTraces)
		c.Refit = &r
	}
	return &c
}

// RelativeTo is res as verify.json in dir holds it: a copy whose relative
// paths, which Run made from the current directory, name the same files
// from dir. LoadResult turns them back.
func (res *Result) RelativeTo(dir string) *Result {
	c := res.clone()
	for _, p := range c.paths() {
		*p = relpath.From(dir, *p)
	}
	return c
}

// resolve turns the relative paths of a verify.json read from dir into
// paths from the current directory (see relpath.Resolve).
func (res *Result) resolve(dir string) {
	for _, p := range res.paths() {
		*p = relpath.Resolve(dir, *p)
	}
}

// candidateName is the stem of the files of the candidate ranked rank.
func candidateName(rank int64) string { return fmt.Sprintf("rank%02d", rank) }

// measuredName is the stem of the files of run k of runs of the candidate
// whose stem is name: name itself for a single run, else name.runK.
func measuredName(name string, k, runs int) string {
	if runs <= 1 {
		return name
	}
	return fmt.Sprintf("%s.run%d", name, k)
}

// Outputs are the files Run may write in opt.Out for opt's candidates:
// the slice, and per candidate its simulated trace, per run its measured
// trace (and engine log, GPU samples), and with a refit its
// re-simulations. A caller checks them against its inputs before Run
// replaces any.
func (opt *Options) Outputs() []string {
	out := []string{filepath.Join(opt.Out, "input.parquet")}
	if opt.Candidates == nil {
		return out
	}
	runs := max(opt.Repeat, 1)
	for _, c := range opt.Candidates.Candidates {
		name := candidateName(c.Rank)
		out = append(out, filepath.Join(opt.Out, name+".sim.parquet"))
		for k := 1; k <= runs; k++ {
			run := measuredName(name, k, runs)
			out = append(out, filepath.Join(opt.Out, run+".parquet"))
			if opt.Engine != nil {
				out = append(out, filepath.Join(opt.Out, run+".engine.log"))
			}
			if opt.GPUInterval > 0 {
				out = append(out, filepath.Join(opt.Out, run+".gpu.csv"))
			}
		}
		if opt.Refit != nil {
			out = append(out, filepath.Join(opt.Out, name+".refit.sim.parquet"), filepath.Join(opt.Out, name+".speed.sim.parquet"))
		}
	}
	return out
}
