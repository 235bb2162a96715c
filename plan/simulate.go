package plan

import (
	"context"
	"errors"
	"io"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Result is one simulated plan: the simulator's summary and its cost.
type Result struct {
	Name      string              // plan label, e.g. the config file name
	Plan      *Plan               `json:"-"`
	StepModel string              // "roofline prior" or the profile it came from
	Summary   *sim.Summary        // latency, throughput, memory, energy
	Cost      model.CostBreakdown // both cost bases
	Outcome   string              // "ok", or why the run stopped (OOM)
}

// Options are the run settings that are not controlled variables.
type Options struct {
	// Step replaces the roofline prior, e.g. a calibrated profile's model.
	Step      sim.StepTimer
	StepModel string    // describes Step
	NoSkip    bool      // step one iteration at a time
	Decisions io.Writer // scheduler decision log (JSONL)
}

// SimConfig builds the simulator configuration of a resolved plan.
func (r *Resolved) SimConfig(opt Options) sim.Config {
	b := r.Plan.Batch
	step := opt.Step
	if step == nil {
		rf := r.Roofline
		step = sim.Roofline{
			FLOPS: rf.FLOPS, BandwidthBytesPerSec: rf.BandwidthBytesPerSec, WeightBytes: rf.WeightBytes,
			KVBytesPerToken: rf.KVBytesPerToken, FLOPsPerToken: rf.FLOPsPerToken,
			AttnFLOPsPerQueryCtx: rf.AttnFLOPsPerQueryCtx, OverheadSec: rf.OverheadSec,
		}
	}
	hw := r.Hardware
	return sim.Config{
		Policy: sim.PolicyConfig{
			Name: b.Strategy, BatchSize: b.BatchSize, MaxWaitMs: b.MaxWaitMS, TokenBudget: b.MaxTokenBudget,
			MaxNumSeqs: b.MaxNumSeqs, MaxNumBatchedTokens: b.MaxNumBatchedTokens, ChunkedPrefill: b.ChunkedPrefill,
		},
		BlockSize:     r.Memory.BlockSize,
		TotalBlocks:   r.Capacity.KVBlocks,
		Step:          step,
		Devices:       r.Plan.Device.Count,
		Power:         hw.PowerWatts,
		MaxNewTokens:  r.Plan.Model.MaxNewTokens,
		PrefixCaching: b.PrefixCaching,
		NoSkip:        opt.NoSkip,
		Decisions:     opt.Decisions,
	}
}

// Simulate runs the trace through the plan and prices the outcome. Per
// request rows go to out when it is not nil. A static batch running out of
// memory is an outcome, not an error: Result.Outcome says so.
func (r *Resolved) Simulate(ctx context.Context, name string, in traces.Reader, out traces.Writer, opt Options) (*Result, error) {
	stepModel := opt.StepModel
	if opt.Step == nil {
		stepModel = "roofline prior (uncalibrated)"
	}
	sum, err := sim.Run(ctx, r.SimConfig(opt), in, out)
	res := &Result{Name: name, Plan: r.Plan, StepModel: stepModel, Summary: sum, Outcome: "ok"}
	var oom *sim.OOMError
	switch {
	case errors.As(err, &oom):
		res.Outcome = oom.Error()
	case err != nil:
		return nil, err
	}
	res.Cost = r.Prices.Cost(model.Usage{
		Devices:      r.Plan.Device.Count,
		WallSeconds:  sum.Makespan,
		EnergyJoules: sum.EnergyJoules,
		InputTokens:  sum.InputTokens,
		OutputTokens: sum.OutputTokens,
	})
	return res, nil
}
