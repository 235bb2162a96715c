package verify

import (
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
