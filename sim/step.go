package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Batch is the shape of one engine step, the only input of a StepTimer.
// All fields are token or sequence counts (float64 so calibration can fit
// them directly).
type Batch struct {
	PrefillTokens float64 // prompt tokens computed this step (Σ chunk tokens)
	PrefillAttn   float64 // Σ over prefill chunks of chunk tokens × context after the chunk
	DecodeSeqs    float64 // sequences decoding one token this step
	DecodeContext float64 // Σ over decode sequences of their context, including the new token
	// PrefillContext is Σ over prefill chunks of the context before the
	// chunk (earlier chunks, a cached prefix): its KV is read back by the
	// chunk's attention. 0 for a prompt computed whole in one step with
	// no cached prefix.
	PrefillContext float64
	// Resident is every token in the KV cache during the step: the running
	// sequences' (this step's included) and what idle slots retain
	// (Config.Slots). Engines with one KV cache that every step attends
	// over (llama.cpp, Ollama) pay for all of it, not just the batch's.
	Resident float64
	// AfterPrefill is 1 for a step without prompt tokens among the
	// PostPrefillSteps that follow a step with some, else 0 (a fraction in
	// a calibration window that averages steps). On the CPU test engine
	// those steps run slower, the batch's sequences alike.
	AfterPrefill float64
}

// PostPrefillSteps is how many steps after one that computed prompt
// tokens count as AfterPrefill.
const PostPrefillSteps = 3

// StepTimer gives the duration in seconds of one engine step.
type StepTimer interface {
	StepSeconds(b Batch) float64
}

// DecodeStretcher is an optional StepTimer capability: closed forms for a
// run of k consecutive pure-decode steps of n sequences whose total context
// is c0 at the first step and grows by n each step (Resident = context:
// no slot cache, see Config.Slots). The engine uses it to jump over steps
// where nothing but decoding happens; without it the engine steps one
// iteration at a time.
type DecodeStretcher interface {
	StepTimer
	// DecodeSeconds is Σ_{j<k} StepSeconds(Batch{DecodeSeqs: n,
	// DecodeContext: c0 + n·j, Resident: c0 + n·j}).
	DecodeSeconds(n, c0 float64, k int64) float64
	// DecodeSteps is the largest k ≥ 0 with DecodeSeconds(n, c0, k) ≤ budget.
	DecodeSteps(n, c0, budget float64) int64
}

// PostPrefillTimer is an optional StepTimer capability: UsesPostPrefill
// reports whether step times depend on Batch.AfterPrefill, so that the
// engine steps through the PostPrefillSteps after a prompt one at a time
// instead of jumping over them.
type PostPrefillTimer interface {
	UsesPostPrefill() bool
}

// ResidentTimer is an optional StepTimer capability: UsesResident reports
// whether step times depend on Batch.Resident, so that the engine tracks
// what idle slots retain only when it matters.
type ResidentTimer interface {
	UsesResident() bool
}

// Admitter is an optional StepTimer capability: how an engine takes in a
// request that arrives while it is busy.
type Admitter interface {
	Admission() Admission
}

// MaxAdmissionDelay bounds Admission.Delay, seconds: request handling
// takes milliseconds, and an hour keeps an arrival plus the delay within
// the int64 nanoseconds of the simulated clock.
const MaxAdmissionDelay = 3600.0

// Admission is how an engine takes in a request that arrives while it is
// busy. On an idle engine this is part of the first step's time, as
// calibration fits it.
type Admission struct {
	// Delay, seconds, is the request handling an engine does beside its
	// steps before the request reaches its step loop (HTTP, tokenization,
	// a hop to a runner), which on a host short of cores waits for the
	// steps. Without Lock the request then joins the next step. At most
	// MaxAdmissionDelay.
	Delay float64
	// Lock: the step loop takes requests in under a lock it holds through
	// every step and takes back first when a step ends, and a request needs
	// a free sequence slot before it waits for the lock, as Ollama's runner
	// does (a Go mutex, and a semaphore of slots). A request that waits
	// alone is passed over once and joins the second step after it got
	// there; when one that was passed over gets the lock, every request
	// waiting by then goes in with it; a slot frees while the step after
	// its sequence's last token forms. So a waiting request takes over a
	// finished sequence's slot three steps after its last token, where
	// vLLM-like engines take it in the next step. Lock applies to the
	// continuous policy, whose MaxNumSeqs are the slots.
	Lock bool
	// UnlockedDelay, with Lock, is the Delay of a policy the lock does
	// not apply to (the static ones, which hold waiting requests
	// themselves): until the request reaches a scheduler that takes it
	// in the next step, a step longer than Delay under the lock, where a
	// request is passed over once. At most MaxAdmissionDelay.
	UnlockedDelay float64
}

// Linear is the calibrated step-time model:
//
//	t = C0 + Cp·PrefillTokens + Ca·PrefillAttn + Cd·DecodeSeqs + Ck·DecodeContext
//	       + Crp·PrefillTokens·Resident + Crd·DecodeSeqs·Resident + Cr·Resident
//	       + Cq·AfterPrefill + Dense(PrefillTokens + DecodeSeqs)
//
// The Resident terms are attention over the whole KV cache (llama.cpp's
// one cache for all slots): its arithmetic per token attending (Crp, Crd)
// and reading the cache once per step (Cr); they are 0 for engines with
// per-sequence paged attention. Coefficients are seconds per unit and must be
// non-negative (what NNLS fits).
type Linear struct {
	C0, Cp, Ca, Cd, Ck float64
	Crp, Crd, Cr       float64
	Cq                 float64 // per step among the PostPrefillSteps after a prompt
	// Dense, when set, is the cost of the step's tokens through the dense
	// layers; calibrated profiles use it in place of C0, Cp and Cd.
	Dense TokenCurve
	// Admit is not a step time but how the engine takes in requests while
	// busy, which calibration measures beside them.
	Admit Admission
}

// Admission implements Admitter.
func (l Linear) Admission() Admission { return l.Admit }

// StepSeconds implements StepTimer.
func (l Linear) StepSeconds(b Batch) float64 {
	return l.C0 + l.Cp*b.PrefillTokens + l.Ca*b.PrefillAttn + l.Cd*b.DecodeSeqs + l.Ck*b.DecodeContext +
		(l.Crp*b.PrefillTokens+l.Crd*b.DecodeSeqs+l.Cr)*b.Resident + l.Cq*b.AfterPrefill + l.Dense.At(b.PrefillTokens+b.DecodeSeqs)
}

// UsesResident implements ResidentTimer.
func (l Linear) UsesResident() bool { return l.Crp > 0 || l.Crd > 0 || l.Cr > 0 }

// UsesPostPrefill implements PostPrefillTimer.
func (l Linear) UsesPostPrefill() bool { return l.Cq > 0 }

// DecodeSeconds implements DecodeStretcher.
func (l Linear) DecodeSeconds(n, c0 float64, k int64) float64 {
	if k <= 0 {
		return 0
	}
	a, b := l.decodeTerms(n, c0)
	return affineSum(a, b, 0, float64(k))
}

// decodeTerms are the first step's time a and its growth b per step of a
// decode stretch of n sequences from c0 context tokens.
func (l Linear) decodeTerms(n, c0 float64) (a, b float64) {
	per := l.Ck + l.Crd*n + l.Cr // per context token: context and resident grow alike
	return l.C0 + l.Cd*n + l.Dense.At(n) + per*c0, per * n
}

// DecodeSteps implements DecodeStretcher. DecodeSeconds is k·a + b·k(k−1)/2,
// so the quadratic's root is within a step of the answer; refineSteps makes
// it exact with two or three evaluations where bisection takes twenty.
func (l Linear) DecodeSteps(n, c0, budget float64) int64 {
	a, b := l.decodeTerms(n, c0)
	h := a - b/2
	r := math.Sqrt(h*h + 2*b*budget)
	k := 2 * budget / (r + h) // no cancellation while h ≥ 0
	if h < 0 {
		k = (r - h) / b
	}
	return refineSteps(affineDecode{a, b}, n, c0, budget, k)
}

// affineDecode is Linear.DecodeSeconds with its terms worked out once for
// the sums refineSteps evaluates (the same sums, bit for bit).
type affineDecode struct{ a, b float64 }

func (s affineDecode) DecodeSeconds(_, _ float64, k int64) float64 {
	if k <= 0 {
		return 0
	}
	return affineSum(s.a, s.b, 0, float64(k))
}

// Validate reports a negative or non-finite coefficient, an admission
// delay over MaxAdmissionDelay, or a model whose
// single-sequence decode step takes no time.
func (l Linear) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"C0", l.C0}, {"Cp", l.Cp}, {"Ca", l.Ca}, {"Cd", l.Cd}, {"Ck", l.Ck}, {"Crp", l.Crp}, {"Crd", l.Crd}, {"Cr", l.Cr}, {"Cq", l.Cq}, {"Admit.Delay", l.Admit.Delay}, {"Admit.UnlockedDelay", l.Admit.UnlockedDelay}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("sim: Linear.%s = %v: want a finite number ≥ 0", c.name, c.v)
		}
	}
	if l.Admit.Delay > MaxAdmissionDelay {
		return fmt.Errorf("sim: Linear.Admit.Delay = %v s: want at most %v s", l.Admit.Delay, MaxAdmissionDelay)
	}
	if l.Admit.UnlockedDelay > MaxAdmissionDelay {
		return fmt.Errorf("sim: Linear.Admit.UnlockedDelay = %v s: want at most %v s", l.Admit.UnlockedDelay, MaxAdmissionDelay)
	}
	if err := l.Dense.Validate(); err != nil {
		return err
	}
	// A decoding sequence has context ≥ 1 and so resident cells ≥ 1: Ck,
	// Crd and Cr each price its step too.
	if l.C0+l.Cd+l.Ck+l.Crd+l.Cr+l.Dense.At(1) <= 0 {
		return fmt.Errorf("sim: Linear: C0, Cd, Ck, Crd, Cr and Dense(1) are all 0, so a decode step takes no time")
	}
	// So does a prompt's step, at some width (a fit may leave the dense
	// curve's narrowest points at 0 and price its prompts wider).
	if l.C0+l.Cp+l.Ca+l.Crp+l.Cr <= 0 && !slices.ContainsFunc(l.Dense.Seconds, func(s float64) bool { return s > 0 }) {
		return fmt.Errorf("sim: Linear: C0, Cp, Ca, Crp, Cr and the Dense curve are all 0, so a prompt step takes no time")
	}
	return nil
}

// TokenCurve is a step's dense cost (weight matrices, norms, sampling) as
// a piecewise-linear function of the tokens it computes, prefill and
// decode together: Seconds[i] at Tokens[i], linear in between, rising from
// 0 at 0 tokens to the first point, and proportional beyond the last (the
// cost per token of the widest point that costs anything: a fit can hold
// its widest points at 0 when other terms carry those steps, and no step
// wider than any measured is free). Engines push all of a step's
// tokens through each weight matrix at once, and that cost is not linear
// in the width where widths are small: on CPU one token takes a
// matrix-vector kernel and two to four share one tile of a matrix kernel;
// on GPU batches are padded to the sizes of captured CUDA graphs. The zero
// TokenCurve costs nothing.
type TokenCurve struct {
	Tokens  []float64 // increasing, > 0
	Seconds []float64 // ≥ 0, one per point
}

// At is the curve's cost of a step of n tokens.
func (c TokenCurve) At(n float64) float64 {
	k := len(c.Tokens)
	if k == 0 || n <= 0 {
		return 0
	}
	i := sort.SearchFloat64s(c.Tokens, n) // first point at ≥ n tokens
	switch {
	case i == k:
		for j := k - 1; j >= 0; j-- {
			if c.Seconds[j] > 0 {
				return c.Seconds[j] * n / c.Tokens[j]
			}
		}
		return 0
	case c.Tokens[i] == n:
		return c.Seconds[i]
	case i == 0:
		return c.Seconds[0] * n / c.Tokens[0]
	}
	t0, t1 := c.Tokens[i-1], c.Tokens[i]
	return c.Seconds[i-1] + (n-t0)/(t1-t0)*(c.Seconds[i]-c.Seconds[i-1])
}

// Validate reports mismatched lengths, token counts that are not positive
// and increasing, and negative or non-finite costs.
func (c TokenCurve) Validate() error {
	if len(c.Tokens) != len(c.Seconds) {
		return fmt.Errorf("sim: TokenCurve: %d token counts but %d costs", len(c.Tokens), len(c.Seconds))
	}
	for i, t := range c.Tokens {
		if !(t > 0) || math.IsInf(t, 0) || (i > 0 && t <= c.Tokens[i-1]) {
			return fmt.Errorf("sim: TokenCurve.Tokens[%d] = %v: want finite, > 0 and increasing", i, t)
		}
		if s := c.Seconds[i]; !(s >= 0) || math.IsInf(s, 0) {
			return fmt.Errorf("sim: TokenCurve.Seconds[%d] = %v: want a finite number ≥ 0", i, s)
		}
	}
	return nil
}

// Roofline is the uncalibrated prior: per step
//
//	max(compute, memory) + OverheadSec
//	compute = (FLOPsPerToken·(PrefillTokens + DecodeSeqs) + AttnFLOPsPerQueryCtx·(PrefillAttn + DecodeContext)) / FLOPS
//	memory  = (WeightBytes + KVBytesPerToken·(DecodeContext + PrefillTokens + PrefillContext)) / BandwidthBytesPerSec
//
// the same formula as model.Roofline.StepSeconds, with plain numbers so that
// sim does not import model.
type Roofline struct {
	FLOPS                float64 // achievable ops/s
	BandwidthBytesPerSec float64 // achievable bytes/s
	WeightBytes          float64 // read once per step
	KVBytesPerToken      float64
	FLOPsPerToken        float64 // dense ops per token
	AttnFLOPsPerQueryCtx float64 // attention ops per (query, context) pair
	OverheadSec          float64 // fixed per-step cost
}

// StepSeconds implements StepTimer. An empty batch takes no time.
func (r Roofline) StepSeconds(b Batch) float64 {
	if b.PrefillTokens <= 0 && b.DecodeSeqs <= 0 {
		return 0
	}
	compute := (r.FLOPsPerToken*(b.PrefillTokens+b.DecodeSeqs) + r.AttnFLOPsPerQueryCtx*(b.PrefillAttn+b.DecodeContext)) / r.FLOPS
	memory := (r.WeightBytes + r.KVBytesPerToken*(b.DecodeContext+b.PrefillTokens+b.PrefillContext)) / r.BandwidthBytesPerSec
	return math.Max(compute, memory) + r.OverheadSec
}

// DecodeSeconds implements DecodeStretcher. Compute and memory time are each
// affine in the step index j, so the sum of their maximum splits at the
// crossover step into two arithmetic series. The prior models paged
// attention.
func (r Roofline) DecodeSeconds(n, c0 float64, k int64) float64 {
	if k <= 0 || n <= 0 {
		return 0
	}
	a1 := (r.FLOPsPerToken*n + r.AttnFLOPsPerQueryCtx*c0) / r.FLOPS // compute at j = 0
	b1 := r.AttnFLOPsPerQueryCtx * n / r.FLOPS                      // compute slope
	a2 := (r.WeightBytes + r.KVBytesPerToken*c0) / r.BandwidthBytesPerSec
	b2 := r.KVBytesPerToken * n / r.BandwidthBytesPerSec
	kf := float64(k)
	total := r.OverheadSec * kf
	switch {
	case b1 == b2:
		return total + affineSum(math.Max(a1, a2), b1, 0, kf)
	case b1 > b2: // compute wins from the crossover on
		s := clampF(math.Ceil((a2-a1)/(b1-b2)), 0, kf)
		return total + affineSum(a2, b2, 0, s) + affineSum(a1, b1, s, kf)
	default: // compute wins up to the crossover
		s := clampF(math.Floor((a2-a1)/(b1-b2))+1, 0, kf)
		return total + affineSum(a1, b1, 0, s) + affineSum(a2, b2, s, kf)
	}
}

// DecodeSteps implements DecodeStretcher.
func (r Roofline) DecodeSteps(n, c0, budget float64) int64 {
	return stepsWithin(r, n, c0, budget)
}

// Validate reports non-positive throughput figures or negative costs.
func (r Roofline) Validate() error {
	if !(r.FLOPS > 0) || math.IsInf(r.FLOPS, 0) {
		return fmt.Errorf("sim: Roofline.FLOPS = %v: want a finite number > 0", r.FLOPS)
	}
	if !(r.BandwidthBytesPerSec > 0) || math.IsInf(r.BandwidthBytesPerSec, 0) {
		return fmt.Errorf("sim: Roofline.BandwidthBytesPerSec = %v: want a finite number > 0", r.BandwidthBytesPerSec)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"WeightBytes", r.WeightBytes}, {"KVBytesPerToken", r.KVBytesPerToken}, {"FLOPsPerToken", r.FLOPsPerToken},
		{"AttnFLOPsPerQueryCtx", r.AttnFLOPsPerQueryCtx}, {"OverheadSec", r.OverheadSec}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("sim: Roofline.%s = %v: want a finite number ≥ 0", c.name, c.v)
		}
	}
	if r.OverheadSec+r.WeightBytes+r.FLOPsPerToken <= 0 {
		return fmt.Errorf("sim: Roofline: OverheadSec, WeightBytes and FLOPsPerToken are all 0, so a decode step takes no time")
	}
	return nil
}

// affineSum is Σ_{j=lo}^{hi-1} (a + b·j) for integer-valued lo ≤ hi.
func affineSum(a, b, lo, hi float64) float64 {
	m := hi - lo
	if m <= 0 {
		return 0
	}
	return m*a + b*m*(lo+hi-1)/2
}

func clampF(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }

// decodeSummer is what stepsWithin and refineSteps need of a timer.
type decodeSummer interface {
	DecodeSeconds(n, c0 float64, k int64) float64
}

// stepsWithin (generic so the timer is not boxed) finds the largest k with
// d.DecodeSeconds(n, c0, k) ≤ budget by doubling then bisection:
// O(log k) closed-form evaluations. Step times never decrease along a
// decode stretch (non-negative coefficients), so the sum is increasing in k.
func stepsWithin[D decodeSummer](d D, n, c0, budget float64) int64 {
	if !(budget >= 0) || d.DecodeSeconds(n, c0, 1) > budget {
		return 0
	}
	lo, hi := int64(1), int64(2)
	for d.DecodeSeconds(n, c0, hi) <= budget {
		lo, hi = hi, hi*2
		if hi > 1<<52 {
			return lo
		}
	}
	for hi-lo > 1 { // DecodeSeconds(lo) ≤ budget < DecodeSeconds(hi)
		mid := lo + (hi-lo)/2
		if d.DecodeSeconds(n, c0, mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// refineSteps is stepsWithin started from a guess: it moves the guess a
// step at a time, and falls back to bisection when four steps do not reach
// the largest k with d.DecodeSeconds(n, c0, k) ≤ budget.
func refineSteps[D decodeSummer](d D, n, c0, budget, guess float64) int64 {
	if !(budget >= 0) || d.DecodeSeconds(n, c0, 1) > budget {
		return 0
	}
	if !(guess >= 1 && guess < 1<<52) {
		return stepsWithin(d, n, c0, budget)
	}
	k := int64(guess)
	for range 4 {
		switch {
		case k > 1 && d.DecodeSeconds(n, c0, k) > budget:
			k--
		case d.DecodeSeconds(n, c0, k+1) <= budget:
			k++
		default:
			return k
		}
	}
	return stepsWithin(d, n, c0, budget)
}

// validator is implemented by timers that can check their parameters.
type validator interface{ Validate() error }
