package sim

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/servesim/servesim/traces"
)

// ClusterSummary is the outcome of RunCluster.
//
// Every replica is held from the cluster's first arrival to its last
// completion (or to the OOM that ended the run, when a replica was still
// working on a measured request then), so the cluster, each pool and each
// replica are measured over that one window: Makespan, DeviceSeconds,
// EnergyJoules, Utilization, the per-second rates and the KV means all use
// it. Warm-up rows stay out of the window's ends, as in Run, not out of
// the work inside it: a replica that got its first request late, or only
// warm-up rows, counts as held from the start, busy whenever it ran a
// step, warm-up rows' included.
//
// Aggregates (the embedded Summary and each pool's) are built from their
// replicas:
//   - counts, tokens, BusySeconds, Steps, prefix lookups and hits: sums,
//     but for the embedded Summary's Requests, which also counts the
//     requests an OOM kept from reaching any replica (their rows are
//     marked not run): the cluster's requests, no pool's or replica's;
//   - latency distributions: over every request (not a mean of replicas);
//   - Utilization: BusySeconds / (replicas × Makespan), the mean replica;
//   - DeviceSeconds: Σ replicas' Devices × Makespan;
//   - EnergyJoules: the replicas' sum, traces.Missing (null in JSON) when
//     any replica has no Config.Power;
//   - KV: TotalBlocks and MeanUsed are sums and MeanUtil their ratio (the
//     capacity-weighted mean replica); MaxUsed and MaxUtil are the largest
//     single-replica peaks; Series is empty (see the replicas');
//   - Policy: the policy name, or the pools' distinct policies joined by "+" when
//     they differ; OOM: the replica OOM that ended the run.
type ClusterSummary struct {
	Summary
	Pools []PoolSummary // in ClusterConfig.Pools order
}

// PoolSummary is one pool: its aggregate and its replicas.
type PoolSummary struct {
	Name   string
	Router string
	Summary
	// Replicas has each replica's own Summary over the cluster window:
	// Requests is how many measured requests (not warm-up rows) the router
	// sent it, Utilization its busy fraction, KV its occupancy.
	Replicas []Summary
}

// MarshalJSON writes the pool as its fields, its Summary's inline as
// for an embedded struct: Summary's own MarshalJSON, promoted, would
// otherwise write the Summary alone.
func (p PoolSummary) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(struct{ Name, Router string }{p.Name, p.Router})
	if err != nil {
		return nil, err
	}
	return joinObjects(head, p.Summary, struct{ Replicas []Summary }{p.Replicas})
}

// MarshalJSON writes the cluster's Summary inline, then its pools (see
// PoolSummary.MarshalJSON).
func (c ClusterSummary) MarshalJSON() ([]byte, error) {
	return joinObjects(nil, c.Summary, struct{ Pools []PoolSummary }{c.Pools})
}

// joinObjects writes head's members (a JSON object, or nil), then those of
// the JSON objects of vs, as one object.
func joinObjects(head []byte, vs ...any) ([]byte, error) {
	out := []byte{'{'}
	if len(head) > 2 {
		out = append(out, head[1:len(head)-1]...)
	}
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if len(b) <= 2 { // {}
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, b[1:len(b)-1]...)
	}
	return append(out, '}'), nil
}

func (c *cluster) summary() *ClusterSummary {
	first, end := int64(-1), int64(-1)
	for _, rp := range c.reps {
		m := rp.e.m
		if m.firstArrival < 0 {
			continue
		}
		if first < 0 || m.firstArrival < first {
			first = m.firstArrival
		}
		end = max(end, m.lastEvent, m.firstArrival)
	}
	if stop, ok := c.stop(); ok && first >= 0 {
		for _, rp := range c.reps {
			// A replica still working when an OOM ended the run was held
			// until then. The replica whose batch did not fit was not: it
			// admitted that batch's first members before finding the
			// one that does not fit, but never ran a step of it (Run
			// ends its window at the last completion too). Nor was one
			// working on warm-up rows alone, which stay out of the
			// window's ends.
			if rp.e.oom == nil && (rp.e.nRunning > 0 || rp.e.now > stop) && rp.e.holdsMeasured(stop) {
				end = max(end, stop)
			}
		}
	}
	cs := &ClusterSummary{}
	var all []*engine
	var allSums []*Summary
	for i, p := range c.pools {
		ps := PoolSummary{Name: p.name, Router: c.cc.Pools[i].Router}
		var es []*engine
		var sums []*Summary
		for _, rp := range p.reps {
			s := rp.e.summaryOver(first, end)
			ps.Replicas = append(ps.Replicas, *s)
			es = append(es, rp.e)
			sums = append(sums, s)
		}
		ps.Summary = aggregate(es, sums)
		cs.Pools = append(cs.Pools, ps)
		all = append(all, es...)
		allSums = append(allSums, sums...)
	}
	cs.Summary = aggregate(all, allSums)
	cs.Requests += c.unarrived
	return cs
}

// holdsMeasured reports whether e holds a request other than a warm-up
// row that it had not finished by stop: running, queued, or done after it.
func (e *engine) holdsMeasured(stop int64) bool {
	if e.measuredRunning > 0 {
		return true
	}
	for _, s := range e.done {
		if s.last > stop && !s.req.Warmup {
			return true
		}
	}
	for _, q := range []*deque{&e.waiting, &e.arriving} {
		for i := range q.len() {
			if !q.at(i).req.Warmup {
				return true
			}
		}
	}
	return false
}

// stop is when an OOM ended the run, if one did: the clock of the replica
// whose batch did not fit.
func (c *cluster) stop() (int64, bool) {
	for _, rp := range c.reps {
		if rp.e.oom != nil {
			return rp.e.now, true
		}
	}
	return 0, false
}

// aggregate combines replica summaries taken over the same window (see
// ClusterSummary); es are the replicas' engines, for their latency values.
func aggregate(es []*engine, sums []*Summary) Summary {
	a := Summary{FirstArrival: sums[0].FirstArrival, Makespan: sums[0].Makespan}
	var queue, ttft, tpot, e2e sketch
	var policies []string
	for i, s := range sums {
		m := es[i].m
		queue.merge(&m.queue)
		ttft.merge(&m.ttft)
		tpot.merge(&m.tpot)
		e2e.merge(&m.e2e)
		if !slices.Contains(policies, s.Policy) {
			policies = append(policies, s.Policy)
		}
		a.Requests += s.Requests
		a.Completed += s.Completed
		a.Rejected += s.Rejected
		a.Preemptions += s.Preemptions
		a.InputTokens += s.InputTokens
		a.OutputTokens += s.OutputTokens
		a.CachedTokens += s.CachedTokens
		a.BusySeconds += s.BusySeconds
		a.DeviceSeconds += s.DeviceSeconds
		if i == 0 {
			a.EnergyJoules = s.EnergyJoules
		} else if a.EnergyJoules == traces.Missing || s.EnergyJoules == traces.Missing {
			a.EnergyJoules = traces.Missing
		} else {
			a.EnergyJoules += s.EnergyJoules
		}
		a.PrefixLookups += s.PrefixLookups
		a.PrefixHits += s.PrefixHits
		a.Steps += s.Steps
		a.Stretches += s.Stretches
		a.StretchSteps += s.StretchSteps
		a.KV.TotalBlocks += s.KV.TotalBlocks
		a.KV.MeanUsed += s.KV.MeanUsed
		a.KV.MaxUsed = max(a.KV.MaxUsed, s.KV.MaxUsed)
		a.KV.MaxUtil = max(a.KV.MaxUtil, s.KV.MaxUtil)
		if a.OOM == nil && s.OOM != nil {
			a.OOM = s.OOM
		}
	}
	a.Policy = strings.Join(policies, "+")
	a.Queue, a.TTFT, a.TPOT, a.E2E = queue.dist(), ttft.dist(), tpot.dist(), e2e.dist()
	if a.PrefixLookups > 0 {
		a.PrefixHitRate = float64(a.PrefixHits) / float64(a.PrefixLookups)
	}
	if a.KV.TotalBlocks > 0 {
		a.KV.MeanUtil = a.KV.MeanUsed / float64(a.KV.TotalBlocks)
	}
	if a.Makespan > 0 {
		a.Utilization = min(1, a.BusySeconds/(float64(len(sums))*a.Makespan))
		a.ReqPerSec = float64(a.Completed) / a.Makespan
		a.InputTokPerSec = float64(a.InputTokens) / a.Makespan
		a.OutputTokPerSec = float64(a.OutputTokens) / a.Makespan
	}
	return a
}
