package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/traces"
)

// Result is one simulated plan: the simulator's summary and its cost.
type Result struct {
	Name      string // plan label, e.g. the config file name
	Plan      *Plan  `json:"-"`
	StepModel string // "roofline prior" or the profile it came from
	// PowerModel says which power model priced the energy: the profile's
	// fit or the catalog's idle and TDP figures.
	PowerModel string              `json:"power_model,omitempty"`
	Summary    *sim.Summary        // latency, throughput, memory, energy
	Cost       model.CostBreakdown // both cost bases
	Outcome    string              // "ok", or why the run stopped (OOM)
	// Pools are a cluster plan's pools with their replicas, each with
	// its KV series (the report draws the cluster's KV use from them: the
	// cluster's Summary has none); nil for one replica. Summary is then
	// the whole cluster's.
	Pools []sim.PoolSummary `json:"Pools,omitempty"`
	// The build, the input files by checksum, the profile (path and
	// sha256) and the catalog (sha256), as the run's simulated trace
	// records them (SetMeta); empty in results written before they were
	// recorded.
	ToolVersion    string            `json:"tool_version,omitempty"`
	InputChecksums map[string]string `json:"input_checksums,omitempty"`
	// InputWorkload is what else made the input files' requests arrive
	// as they did (traces.Workload); written when empty too, since absent
	// it is unknown (results written before it was recorded).
	InputWorkload map[string]string `json:"input_workload"`
	Profile       string            `json:"profile,omitempty"`
	ProfileSHA256 string            `json:"profile_sha256,omitempty"`
	CatalogSHA256 string            `json:"catalog_sha256,omitempty"`
}

// SetMeta records what identifies the run in meta, its simulated trace's
// metadata (ResultMeta), so that a summary names the same build, inputs
// and profile as the trace.
func (res *Result) SetMeta(meta traces.Meta) {
	res.ToolVersion = meta.ToolVersion
	res.InputChecksums = meta.Clone().Checksums
	res.InputWorkload = traces.Workload(meta)
	res.Profile, res.ProfileSHA256 = meta.Extra["profile"], meta.Extra["profile_sha256"]
	res.CatalogSHA256 = meta.Extra["catalog_sha256"]
}

// Options are the run settings that are not controlled variables.
type Options struct {
	// Step replaces the roofline prior, e.g. a calibrated profile's model.
	Step      sim.StepTimer
	StepModel string // describes Step
	// Power replaces the catalog's per-device power model (idle + (TDP −
	// idle) × utilization), e.g. with a calibrated profile's fit; it is
	// given utilization in [0, 1] and returns watts per device.
	Power      func(utilization float64) float64
	PowerModel string    // describes Power
	NoSkip     bool      // step one iteration at a time
	Decisions  io.Writer // scheduler decision log (JSONL)
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
	power := opt.Power
	if power == nil {
		power = r.Hardware.PowerWatts
	}
	return sim.Config{
		Policy: sim.PolicyConfig{
			Name: b.Strategy, BatchSize: b.BatchSize, MaxWaitMs: b.MaxWaitMS, TokenBudget: b.MaxTokenBudget,
			MaxNumSeqs: b.MaxNumSeqs, MaxNumBatchedTokens: b.MaxNumBatchedTokens, ChunkedPrefill: b.ChunkedPrefill,
		},
		BlockSize:     r.Memory.BlockSize,
		TotalBlocks:   r.Capacity.KVBlocks,
		Step:          step,
		Devices:       r.Plan.Device.Count,
		Power:         power,
		MaxNewTokens:  r.Plan.Model.MaxNewTokens,
		MaxModelLen:   r.Plan.Device.MaxModelLen,
		Slots:         slots(b),
		Cells:         slots(b) * r.Plan.Device.MaxModelLen,
		PrefixCaching: b.PrefixCaching,
		NoSkip:        opt.NoSkip,
		Decisions:     opt.Decisions,
	}
}

// slots is the engine's sequence slots for a step model that charges
// the cells a step attends over (llama.cpp, each slot with a context of
// max_model_len): continuous batching's sequence limit; the static
// policies run no slots.
func slots(b Batch) int {
	if b.Strategy == "continuous" {
		return b.MaxNumSeqs
	}
	return 0
}

// Pool names of a split cluster.
const (
	ShortPool = "short"
	LongPool  = "long"
)

// ClusterConfig builds the cluster of a resolved plan: one pool of
// cluster.replicas replicas (one replica without [cluster]), or a short
// and a long pool split at cluster.split_tokens. Every replica has
// SimConfig(opt) without the decision log.
func (r *Resolved) ClusterConfig(opt Options) sim.ClusterConfig {
	rep := r.SimConfig(opt)
	rep.Decisions = nil
	c := r.Plan.Cluster
	if c == nil {
		return sim.ClusterConfig{Pools: []sim.PoolConfig{{Name: "pool0", Replicas: 1, Router: sim.RoundRobin, Replica: rep}}}
	}
	if c.SplitTokens <= 0 {
		return sim.ClusterConfig{Pools: []sim.PoolConfig{{Name: "pool0", Replicas: c.Replicas, Router: c.Router, Replica: rep}}}
	}
	return sim.ClusterConfig{
		Pools: []sim.PoolConfig{
			{Name: ShortPool, Replicas: c.Replicas, Router: c.Router, Replica: rep},
			{Name: LongPool, Replicas: c.LongReplicas, Router: c.Router, Replica: rep},
		},
		Threshold:  c.SplitTokens,
		PromptOnly: c.SplitOnPrompt,
	}
}

// ErrDecisionsInCluster is returned by Simulate when a decision log is
// asked for with a cluster plan: the log is one replica's.
var ErrDecisionsInCluster = errors.New("decision logs are per replica: not supported with a [cluster] of several replicas or a split")

// Simulate runs the trace through the plan and prices the outcome. Per
// request rows go to out when it is not nil. A static batch running out of
// memory is an outcome, not an error: Result.Outcome says so.
//
// A cluster plan (Plan.Clustered) runs sim.RunCluster; its device-seconds
// and cost count every replica's devices, and Result.Pools has the pools.
// It cannot write a decision log (ErrDecisionsInCluster).
func (r *Resolved) Simulate(ctx context.Context, name string, in traces.Reader, out traces.Writer, opt Options) (*Result, error) {
	var (
		sum   *sim.Summary
		pools []sim.PoolSummary
		err   error
	)
	if r.Plan.Clustered() {
		if opt.Decisions != nil {
			return nil, fmt.Errorf("plan %s (%s): %w", name, r.Plan.ClusterLabel(), ErrDecisionsInCluster)
		}
		var cs *sim.ClusterSummary
		cs, err = sim.RunCluster(ctx, r.ClusterConfig(opt), in, out)
		if cs != nil {
			sum, pools = &cs.Summary, cs.Pools
		}
	} else {
		sum, err = sim.Run(ctx, r.SimConfig(opt), in, out)
	}
	res, err := r.simulated(name, opt, "", sum, err)
	if err != nil {
		return nil, err
	}
	res.Pools = pools
	return res, nil
}

// SimulateClosedLoop is Simulate with a closed loop of clients
// (sim.RunClosedLoop) instead of the trace's arrival times. It simulates
// one replica: a cluster plan is the caller's to refuse.
func (r *Resolved) SimulateClosedLoop(ctx context.Context, name string, loop sim.ClosedLoop, in traces.Reader, out traces.Writer, opt Options) (*Result, error) {
	sum, err := sim.RunClosedLoop(ctx, r.SimConfig(opt), loop, in, out)
	return r.simulated(name, opt, fmt.Sprintf("closed loop, %d clients", loop.Clients), sum, err)
}

// SimulateSessionWait is Simulate with sessions' turns held until their
// previous turns end (sim.RunSessionWait). It simulates one replica: a
// cluster plan is the caller's to refuse.
func (r *Resolved) SimulateSessionWait(ctx context.Context, name string, wait sim.SessionWait, in traces.Reader, out traces.Writer, opt Options) (*Result, error) {
	sum, err := sim.RunSessionWait(ctx, r.SimConfig(opt), wait, in, out)
	return r.simulated(name, opt, "session wait, "+wait.IssueGap.String()+" turnaround", sum, err)
}

// SimulateArrivals is the run of the trace that loop and wait choose (at
// most one is set): SimulateClosedLoop with loop, SimulateSessionWait
// with wait, else Simulate at the trace's arrivals.
func (r *Resolved) SimulateArrivals(ctx context.Context, name string, loop *sim.ClosedLoop, wait *sim.SessionWait, in traces.Reader, out traces.Writer, opt Options) (*Result, error) {
	switch {
	case loop != nil:
		return r.SimulateClosedLoop(ctx, name, *loop, in, out, opt)
	case wait != nil:
		return r.SimulateSessionWait(ctx, name, *wait, in, out, opt)
	}
	return r.Simulate(ctx, name, in, out, opt)
}

// SetArrivalMeta records in meta how a run of SimulateArrivals took the
// trace's requests: loop's clients and turnaround, or the turnaround of
// wait's held turns. With both nil, the trace's arrivals, it sets nothing.
func SetArrivalMeta(meta *traces.Meta, loop *sim.ClosedLoop, wait *sim.SessionWait) {
	if loop != nil {
		meta.Set("closed_loop", strconv.Itoa(loop.Clients))
		meta.Set("closed_loop_gap", loop.IssueGap.String())
	}
	if wait != nil {
		meta.Set("session_wait", wait.IssueGap.String())
	}
}

// simulated is the priced result of a run of r that ended with err: a
// static batch out of memory is its outcome, any other error none. how,
// when not "", says how the requests arrived, after the step model.
func (r *Resolved) simulated(name string, opt Options, how string, sum *sim.Summary, err error) (*Result, error) {
	stepModel := opt.StepModel
	if opt.Step == nil {
		stepModel = "roofline prior (uncalibrated)"
	}
	if how != "" {
		stepModel += "; " + how
	}
	res := &Result{Name: name, Plan: r.Plan, StepModel: stepModel, PowerModel: r.PowerModel(opt), Summary: sum, Outcome: "ok"}
	var oom *sim.OOMError
	switch {
	case errors.As(err, &oom):
		res.Outcome = oom.Error()
	case err != nil:
		return nil, err
	}
	res.Cost = r.Prices.Cost(model.Usage{
		Devices:      r.Plan.Devices(),
		WallSeconds:  sum.Makespan,
		EnergyJoules: sum.EnergyJoules,
		InputTokens:  sum.InputTokens,
		OutputTokens: sum.OutputTokens,
	})
	return res, nil
}

// PowerModel describes the power model opt prices energy with: its own,
// or the catalog's figures for the plan's device.
func (r *Resolved) PowerModel(opt Options) string {
	if opt.Power != nil {
		return opt.PowerModel
	}
	h := r.Hardware
	return fmt.Sprintf("catalog %s: %g W idle + %g W × utilization per device", h.Name, h.IdleWatts, h.TDPWatts-h.IdleWatts)
}

// ResultMeta is the metadata of a trace simulated from input metadata in
// under r: the input's, plus every controlled variable of the run — the
// plan, the step model, this build, the profile by path and sha256 and
// the --catalog file by sha256 ("" for none). What describes how the
// input was run (a live input's engine, device, batching, precision and
// build and its recording's replay.* and proxy.* settings; a simulated
// input's plan, step model, profile, catalog and closed loop) is kept
// under input_ names (traces.MoveRunToInput), as record and trace scale
// keep it: this run ran none of it. How it took the requests the caller
// adds (SetArrivalMeta).
func (r *Resolved) ResultMeta(in traces.Meta, stepModel, toolVersion, profile, profileSHA256, catalogSHA256 string) traces.Meta {
	meta := in.Clone()
	meta.MoveRunToInput(true)
	meta.Source = "simulated"
	meta.Model = r.Arch.Name
	meta.WeightVersion = r.Plan.Model.WeightVersion
	meta.Precision = r.Memory.WeightPrecision.String() // by its name, not the plan's alias
	meta.Device = fmt.Sprintf("%d× %s", r.Plan.Devices(), r.Hardware.Name)
	meta.BatchPolicy = r.Plan.Batch.Strategy + " " + r.Plan.BatchLimit()
	meta.ToolVersion = toolVersion
	if toml, err := r.Plan.Encode(); err == nil {
		meta.Set("plan", string(toml))
	}
	meta.Set("step_model", stepModel)
	if profile != "" {
		// By checksum too: a profile refitted in place keeps its path. Not
		// among the input checksums, which compare tells workloads apart by.
		meta.Set("profile", profile)
		meta.Set("profile_sha256", profileSHA256)
	}
	if catalogSHA256 != "" {
		// the plan names its device and model; the catalog says what they are
		meta.Set("catalog_sha256", catalogSHA256)
	}
	return meta
}
