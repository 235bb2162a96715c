package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// invTrace is 1 to 40 requests: arrivals together or apart, empty,
// one-token and over-long prompts, empty, one-token and long outputs,
// shared prefixes, warm-up rows, sessions and failed source rows.
func invTrace(rng *rand.Rand, capacity, hbs int) []*traces.Request {
	n := 1 + rng.IntN(40)
	reqs := make([]*traces.Request, 0, n)
	at := 0.0
	for i := range n {
		switch rng.IntN(4) {
		case 0: // with the one before
		case 1:
			at += 1 + 3000*rng.Float64() // past the run so far: the engine idles
		default:
			at += 50 * rng.ExpFloat64()
		}
		r := req(strconv.Itoa(i), math.Round(at), invLength(rng, 120, capacity), invLength(rng, 80, capacity))
		r.Warmup = rng.IntN(6) == 0
		r.SourceFailed = rng.IntN(30) == 0
		r.SessionID = []string{"", "", "a", "b"}[rng.IntN(4)]
		reqs = append(reqs, r)
	}
	if rng.IntN(2) == 0 {
		addPrefixHashes(rng, reqs, hbs)
	}
	return reqs
}

// invLength is 0, 1, up to most, or past the capacity in tokens.
func invLength(rng *rand.Rand, most, capacity int) int32 {
	switch rng.IntN(12) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return int32(capacity + 1 + rng.IntN(capacity))
	}
	return int32(2 + rng.IntN(most))
}

// invConfig is a small deployment under any policy: few blocks, so that
// continuous batching preempts and a static batch runs out of memory.
func invConfig(rng *rand.Rand) Config {
	bs := []int{1, 2, 4, 16}[rng.IntN(4)]
	var pol PolicyConfig
	switch rng.IntN(5) {
	case 0:
		pol = PolicyConfig{Name: Serial}
	case 1:
		pol = PolicyConfig{Name: Fixed, BatchSize: 1 + rng.IntN(4), MaxWaitMs: float64(rng.IntN(30))}
	case 2:
		pol = PolicyConfig{Name: TokenBudget, TokenBudget: 2 + rng.IntN(600), MaxWaitMs: float64(rng.IntN(30))}
	default:
		seqs := 1 + rng.IntN(8)
		pol = PolicyConfig{Name: Continuous, MaxNumSeqs: seqs, MaxNumBatchedTokens: seqs + rng.IntN(200), ChunkedPrefill: rng.IntN(2) == 0}
	}
	var tm StepTimer = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6}
	switch rng.IntN(4) {
	case 0:
		tm = realRoofline
	case 1:
		admit := []Admission{{Delay: 0.007}, {Lock: true}, {Delay: 0.007, Lock: true}}[rng.IntN(3)]
		tm = Linear{C0: 10e-3, Cp: 1e-4, Cd: 1e-3, Ck: 1e-6, Admit: admit}
	}
	cfg := Config{Policy: pol, BlockSize: bs, HashBlockSize: []int{0, bs, 2 * bs, 3}[rng.IntN(4)], TotalBlocks: (16 + rng.IntN(400) + bs - 1) / bs,
		Step: tm, Devices: 1 + rng.IntN(2), PrefixCaching: rng.IntN(2) == 0, NoSkip: rng.IntN(2) == 0, CheckInvariants: true}
	if rng.IntN(3) == 0 {
		cfg.MaxNewTokens = 1 + rng.IntN(40)
	}
	if rng.IntN(3) == 0 && (pol.Name != Continuous || pol.ChunkedPrefill || pol.MaxNumBatchedTokens >= 40) {
		cfg.MaxModelLen = 40 + rng.IntN(200)
		if pol.Name == Continuous && !pol.ChunkedPrefill {
			cfg.MaxModelLen = min(cfg.MaxModelLen, pol.MaxNumBatchedTokens)
		}
	}
	if rng.IntN(2) == 0 {
		cfg.Power = func(u float64) float64 { return 100 + 600*u }
	}
	return cfg
}

// describeConfig is what a failure prints of the config it ran.
func describeConfig(c Config) string {
	return fmt.Sprintf("%+v bs=%d hbs=%d blocks=%d step=%+v devices=%d power=%v cache=%v noskip=%v max_new=%d max_model_len=%d",
		c.Policy, c.BlockSize, c.HashBlockSize, c.TotalBlocks, c.Step, c.Devices, c.Power != nil, c.PrefixCaching, c.NoSkip, c.MaxNewTokens, c.MaxModelLen)
}

// invCheck checks one run's rows and summary against its input; every
// failure names the seed, the way the run was driven and the config.
type invCheck struct {
	t    *testing.T
	name string
	cfg  Config
	reqs []*traces.Request
	bad  *int // failures so far, over every run
	seen *invSeen
}

// invSeen counts the cases the random runs reached, so that a generator
// that stopped reaching one shows.
type invSeen struct {
	served, rejected, notRun, warmup, oneToken, cut int
	preempted, cached, stretched                    int
}

func (c *invCheck) errorf(format string, args ...any) {
	c.t.Helper()
	*c.bad++
	c.t.Errorf("%s: %s\n\tconfig %s", c.name, fmt.Sprintf(format, args...), describeConfig(c.cfg))
}

// rowTally is what the rows of measured requests (not warm-up rows) add up to.
type rowTally struct {
	rows, served, rejected, multi int64
	in, out, cached, preempts     int64
	firstIssue, lastToken, maxE2E int64
}

// checkRows checks each row against its request and returns what the
// measured rows add up to. issue says how a row's ScheduledSend stands to
// its Arrival (-1: at or before it, 0: at it, 1: at or after it).
func (c *invCheck) checkRows(rows []*traces.Request, err error, issue int) rowTally {
	c.t.Helper()
	if len(rows) != len(c.reqs) {
		c.errorf("%d rows for %d requests", len(rows), len(c.reqs))
		return rowTally{}
	}
	var oom *OOMError
	stopped := errors.As(err, &oom)
	if err != nil && !stopped {
		c.errorf("err = %v, want nil or an OOM", err)
	}
	if stopped && c.cfg.Policy.Name == Continuous {
		c.errorf("continuous batching ran out of memory: %v", err)
	}
	reject := c.cfg.Rejecter()
	tally := rowTally{firstIssue: math.MaxInt64, lastToken: -1}
	for i, in := range c.reqs {
		r := rows[i]
		if r.ID != in.ID {
			c.errorf("row %d is request %q, want %q (input order)", i, r.ID, in.ID)
			continue
		}
		if issue == 0 && r.ScheduledSend != r.Arrival || issue < 0 && r.ScheduledSend > r.Arrival || issue > 0 && r.ScheduledSend < r.Arrival {
			c.errorf("row %s: issued at %d, arrives at %d", r.ID, r.ScheduledSend, r.Arrival)
		}
		why := reject(in)
		switch {
		case r.Error == "":
			if why != "" {
				c.errorf("row %s served, but it can never run: %s", r.ID, why)
			}
			c.checkServed(in, r)
			c.seen.served++
		case strings.HasPrefix(r.Error, "rejected: "):
			if why == "" || r.Error != "rejected: "+why {
				c.errorf("row %s: %q, the rule says %q", r.ID, r.Error, why)
			}
			c.checkUnmeasured(r)
			c.seen.rejected++
		case strings.HasPrefix(r.Error, NotRunPrefix):
			if !stopped {
				c.errorf("row %s: %q in a run that did not run out of memory", r.ID, r.Error)
			}
			c.checkUnmeasured(r)
			c.seen.notRun++
		default:
			c.errorf("row %s: error %q, want served, rejected or not run", r.ID, r.Error)
		}
		if in.Warmup {
			continue
		}
		tally.add(r)
	}
	return tally
}

func (t *rowTally) add(r *traces.Request) {
	t.rows++
	if strings.HasPrefix(r.Error, "rejected: ") {
		t.rejected++
		t.firstIssue = min(t.firstIssue, r.ScheduledSend)
	}
	if r.Error != "" {
		return
	}
	t.served++
	t.firstIssue = min(t.firstIssue, r.ScheduledSend)
	t.lastToken = max(t.lastToken, r.LastToken)
	t.maxE2E = max(t.maxE2E, r.LastToken-r.ScheduledSend)
	t.in += int64(r.UsagePrompt)
	t.out += int64(r.UsageOutput)
	t.cached += int64(r.UsageCached)
	t.preempts += int64(r.Preemptions)
	if r.UsageOutput >= 2 {
		t.multi++
	}
}

// count counts what served row r of request in reached.
func (n *invSeen) count(in, r *traces.Request) {
	for _, reached := range []struct {
		n  *int
		ok bool
	}{
		{&n.warmup, in.Warmup}, {&n.oneToken, r.UsageOutput == 1}, {&n.cut, r.UsageOutput < in.OutputTokens},
		{&n.preempted, r.Preemptions > 0}, {&n.cached, r.UsageCached > 0},
	} {
		if reached.ok {
			*reached.n++
		}
	}
}

// checkServed: a served row's times follow one another, and it served the
// prompt and the output asked for, the output cut only to max_new.
func (c *invCheck) checkServed(in, r *traces.Request) {
	c.t.Helper()
	if !(r.StartTime >= r.Arrival && r.StartTime >= r.ScheduledSend && r.FirstToken > r.StartTime && r.LastToken >= r.FirstToken) {
		c.errorf("row %s: issued %d, arrives %d, starts %d, first token %d, last %d: want issue, arrival ≤ start < first ≤ last",
			r.ID, r.ScheduledSend, r.Arrival, r.StartTime, r.FirstToken, r.LastToken)
	}
	wantOut := max(in.OutputTokens, 1)
	if m := int32(c.cfg.MaxNewTokens); m > 0 {
		wantOut = min(wantOut, m)
	}
	if r.UsagePrompt != max(in.PromptTokens, 1) || r.UsageOutput != wantOut {
		c.errorf("row %s: served %d prompt and %d output tokens, asked %d and %d (max_new %d)",
			r.ID, r.UsagePrompt, r.UsageOutput, in.PromptTokens, in.OutputTokens, c.cfg.MaxNewTokens)
	}
	if (r.UsageOutput == 1) != (r.FirstToken == r.LastToken) {
		c.errorf("row %s: %d output tokens, first at %d, last at %d", r.ID, r.UsageOutput, r.FirstToken, r.LastToken)
	}
	if r.UsageCached < 0 || r.UsageCached >= r.UsagePrompt || r.UsageCached > 0 && !c.cfg.PrefixCaching {
		c.errorf("row %s: %d cached of %d prompt tokens (prefix caching %v)", r.ID, r.UsageCached, r.UsagePrompt, c.cfg.PrefixCaching)
	}
	if r.Preemptions < 0 || r.Preemptions > 0 && c.cfg.Policy.Name != Continuous {
		c.errorf("row %s: %d preemptions under %s", r.ID, r.Preemptions, c.cfg.Policy.Name)
	}
	if r.FinishReason != "length" {
		c.errorf("row %s: finish reason %q, want length", r.ID, r.FinishReason)
	}
	c.seen.count(in, r)
}

// checkUnmeasured: a row rejected or not run carries no measurement.
func (c *invCheck) checkUnmeasured(r *traces.Request) {
	c.t.Helper()
	if r.StartTime != traces.Missing || r.FirstToken != traces.Missing || r.LastToken != traces.Missing ||
		r.UsagePrompt != traces.Missing || r.UsageOutput != traces.Missing || r.UsageCached != traces.Missing || r.Preemptions != traces.Missing {
		c.errorf("row %s: %q with measurements %+v", r.ID, r.Error, *r)
	}
}

// checkSummary: the summary's counts, totals, window and KV figures are
// the rows'. replicas is the number of replicas it sums over.
func (c *invCheck) checkSummary(s *Summary, tally rowTally, err error, replicas int) {
	c.t.Helper()
	if s == nil {
		c.errorf("no summary (err %v)", err)
		return
	}
	if s.Requests != tally.rows || s.Completed != tally.served || s.Rejected != tally.rejected {
		c.errorf("summary counts %d requests, %d completed, %d rejected; the rows %d, %d, %d",
			s.Requests, s.Completed, s.Rejected, tally.rows, tally.served, tally.rejected)
	}
	if s.InputTokens != tally.in || s.OutputTokens != tally.out || s.CachedTokens != tally.cached || s.Preemptions != tally.preempts {
		c.errorf("summary has %d input, %d output, %d cached tokens and %d preemptions; the rows %d, %d, %d and %d",
			s.InputTokens, s.OutputTokens, s.CachedTokens, s.Preemptions, tally.in, tally.out, tally.cached, tally.preempts)
	}
	for _, d := range []struct {
		name string
		dist Dist
		n    int64
	}{{"queue", s.Queue, tally.served}, {"TTFT", s.TTFT, tally.served}, {"E2E", s.E2E, tally.served}, {"TPOT", s.TPOT, tally.multi}} {
		if d.dist.N != d.n {
			c.errorf("%s counts %d requests, want %d", d.name, d.dist.N, d.n)
		}
	}
	if tally.served > 0 && (s.E2E.Max != float64(tally.maxE2E)/1e9 || s.Queue.P50 < 0 || s.TTFT.Max > s.E2E.Max) {
		c.errorf("E2E max %v s, the rows' %v s; queue median %v s; TTFT max %v s", s.E2E.Max, float64(tally.maxE2E)/1e9, s.Queue.P50, s.TTFT.Max)
	}
	if (err != nil) != (s.OOM != nil) {
		c.errorf("err %v, summary OOM %+v", err, s.OOM)
	}
	c.checkWindow(s, tally, err, replicas)
	if replicas == 1 {
		c.checkKV("", s.KV)
	} else if s.KV.MaxUsed > c.cfg.TotalBlocks {
		c.errorf("a replica's KV peak %d of %d blocks", s.KV.MaxUsed, c.cfg.TotalBlocks)
	}
	if s.PrefixHits > s.PrefixLookups || s.PrefixHits > 0 && !c.cfg.PrefixCaching {
		c.errorf("%d prefix hits of %d lookups (prefix caching %v)", s.PrefixHits, s.PrefixLookups, c.cfg.PrefixCaching)
	}
	if s.Stretches > 0 {
		c.seen.stretched++
	}
	if s.StretchSteps > s.Steps || s.Stretches > s.StretchSteps || s.Stretches > 0 && c.cfg.NoSkip {
		c.errorf("%d steps, %d stretches of %d steps (no skip %v)", s.Steps, s.Stretches, s.StretchSteps, c.cfg.NoSkip)
	}
}

// checkKV: one device's KV occupancy stays within its blocks.
func (c *invCheck) checkKV(who string, kv KVStats) {
	c.t.Helper()
	if kv.TotalBlocks != c.cfg.TotalBlocks || kv.MaxUsed > kv.TotalBlocks || kv.MeanUsed > float64(kv.MaxUsed)+1e-9 {
		c.errorf("%sKV peak %d, mean %v of %d blocks", who, kv.MaxUsed, kv.MeanUsed, kv.TotalBlocks)
	}
	for _, p := range kv.Series {
		if p.Used > kv.TotalBlocks {
			c.errorf("%sKV series holds %d of %d blocks at %v s", who, p.Used, kv.TotalBlocks, p.T)
		}
	}
}

// checkWindow: the window runs from the first measured issue to the last
// measured token, and the device time and busy time are held over it.
func (c *invCheck) checkWindow(s *Summary, tally rowTally, err error, replicas int) {
	c.t.Helper()
	if err == nil && tally.rows > 0 && s.FirstArrival != float64(tally.firstIssue)/1e9 {
		c.errorf("window opens at %v s, the first measured issue is at %d ns", s.FirstArrival, tally.firstIssue)
	}
	if err == nil && tally.served > 0 && s.Makespan != float64(tally.lastToken-tally.firstIssue)/1e9 {
		c.errorf("makespan %v s, the rows' %d ns to %d ns", s.Makespan, tally.firstIssue, tally.lastToken)
	}
	if tally.served > 0 && s.Makespan*1e9 < float64(tally.lastToken)-s.FirstArrival*1e9-1 {
		c.errorf("makespan %v s from %v s ends before the last measured token at %d ns", s.Makespan, s.FirstArrival, tally.lastToken)
	}
	if want := float64(replicas*c.cfg.Devices) * s.Makespan; math.Abs(s.DeviceSeconds-want) > 1e-9*max(1, want) {
		c.errorf("%v device-seconds, want %d replicas × %d devices × %v s", s.DeviceSeconds, replicas, c.cfg.Devices, s.Makespan)
	}
	if s.BusySeconds < 0 || s.BusySeconds > float64(replicas)*s.Makespan+1e-9 || s.Utilization < 0 || s.Utilization > 1 {
		c.errorf("busy %v s over %v s on %d replicas, utilisation %v", s.BusySeconds, s.Makespan, replicas, s.Utilization)
	}
}

// TestSimInvariantsRandom runs random small traces under random small
// deployments of every policy through Run, a cluster, a closed loop and
// session waiting, and checks what must hold of any run: one row per
// request, served, rejected or (after an OOM) not run; times in order;
// tokens served as asked; a summary that adds the rows up; KV within the
// device. A failure names the seed, which replays it.
func TestSimInvariantsRandom(t *testing.T) {
	bad := 0
	var seen invSeen
	for seed := uint64(1); seed <= 400 && bad < 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 59))
		cfg := invConfig(rng)
		hbs := cfg.HashBlockSize
		if hbs == 0 {
			hbs = cfg.BlockSize
		}
		reqs := invTrace(rng, cfg.TotalBlocks*cfg.BlockSize, hbs)
		check := func(how string, rows []*traces.Request, s *Summary, err error, issue, replicas int) *invCheck {
			t.Helper()
			c := &invCheck{t: t, name: fmt.Sprintf("seed %d %s", seed, how), cfg: cfg, reqs: reqs, bad: &bad, seen: &seen}
			tally := c.checkRows(rows, err, issue)
			c.checkSummary(s, tally, err, replicas)
			return c
		}

		sum, w, err := run(t, cfg, reqs)
		check("Run", w.rows, sum, err, 0, 1)

		n, router := 1+rng.IntN(3), Routers[rng.IntN(len(Routers))]
		cw := &memWriter{}
		cs, err := RunCluster(t.Context(), onePool(n, router, cfg), newSliceReader(reqs), cw)
		c := check(fmt.Sprintf("RunCluster %d×%s", n, router), cw.rows, &cs.Summary, err, 0, n)
		for i, rep := range cs.Pools[0].Replicas {
			c.checkKV(fmt.Sprintf("replica %d: ", i), rep.KV)
		}

		loop := ClosedLoop{Clients: 1 + rng.IntN(4), IssueGap: time.Duration(rng.IntN(2)) * time.Millisecond}
		lw := &memWriter{}
		sum, err = RunClosedLoop(t.Context(), cfg, loop, newSliceReader(reqs), lw)
		check(fmt.Sprintf("RunClosedLoop %+v", loop), lw.rows, sum, err, -1, 1)

		wait := SessionWait{IssueGap: time.Duration(rng.IntN(2)) * time.Millisecond}
		sw := &memWriter{}
		sum, err = RunSessionWait(t.Context(), cfg, wait, newSliceReader(reqs), sw)
		check(fmt.Sprintf("RunSessionWait %+v", wait), sw.rows, sum, err, 1, 1)
	}
	t.Logf("%+v", seen)
	if bad == 0 && (seen.served == 0 || seen.rejected == 0 || seen.notRun == 0 || seen.warmup == 0 || seen.oneToken == 0 ||
		seen.cut == 0 || seen.preempted == 0 || seen.cached == 0 || seen.stretched == 0) {
		t.Errorf("the random runs reached %+v: none of some case, which the test then checks nowhere", seen)
	}
}
