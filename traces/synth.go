package traces

import (
	"container/heap"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/numfmt"
)

// Arrival processes for synthetic traces.
const (
	ArrivalConstant = "constant" // evenly spaced at Rate
	ArrivalPoisson  = "poisson"  // exponential gaps, mean 1/Rate
	ArrivalGamma    = "gamma"    // gamma gaps, mean 1/Rate, coefficient of variation CV
)

// Length distributions for synthetic traces.
const (
	LengthFixed     = "fixed"     // always Value
	LengthUniform   = "uniform"   // uniform on [Min, Max]
	LengthLognormal = "lognormal" // lognormal with Mean and CV, clamped to [Min, Max] when set
)

// MaxArrivalRate is the highest Rate a synthetic trace takes: a mean gap
// of 1 µs. Arrivals are kept to the nanosecond, so faster gaps would
// round to a few ns and skew the process (a constant trace at 3e9 req/s
// measures an inter-arrival CV of 1.41, not 0).
const MaxArrivalRate = 1e6

// ArrivalSpec is an arrival process at Rate requests/s. CV is the
// burstiness of the gamma process (1 = Poisson, > 1 burstier).
//
// Curve, when set, makes the rate vary in time instead (Rate is then 0):
// linear between its points, from 0 s, and held after the last. The
// process is drawn at unit rate and its times mapped through the inverse
// of the curve's integral (time rescaling): exact for Poisson, and the
// same stretch of a gamma or constant process's gaps. The first event
// comes where the curve's rate first turns positive.
type ArrivalSpec struct {
	Kind  string
	Rate  float64
	CV    float64
	Curve []RatePoint
}

// LengthSpec is a token-length distribution. Lengths are at least 1 for
// lognormal draws; Max = 0 means no upper clamp. Mean and CV are the
// lognormal's before rounding and clamping: a clamp that cuts into it
// moves the mean and CV of what is drawn.
type LengthSpec struct {
	Kind     string
	Value    int32
	Min, Max int32
	Mean, CV float64
}

// SynthConfig describes a synthetic trace. The zero value is not valid;
// start from DefaultSynthConfig.
type SynthConfig struct {
	Seed uint64
	// Requests is the number of measured rows in process mode, at least 1.
	Requests int
	// PromptLengths, when set, selects the fixed-input matrix: each length
	// in order, Repeats times (length-major), and Requests is ignored.
	PromptLengths []int32
	Repeats       int
	// Warmup rows come first, with Warmup=true: the first matrix length,
	// or drawn lengths in process mode.
	Warmup  int
	Arrival ArrivalSpec
	Prompt  LengthSpec
	Output  LengthSpec
	// Resample, when set, draws (prompt, output) pairs jointly from another
	// trace's rows instead of Prompt and Output.
	Resample *Empirical
	// PrefixGroups > 0 puts each request in a random one of that many
	// groups whose members share their first PrefixTokens tokens; the
	// prompt is then PrefixTokens + the drawn length. PrefixTokens is at
	// least BlockSize: only whole blocks are shared.
	PrefixGroups int
	PrefixTokens int32
	// BlockSize > 0 gives every request PrefixHashes: one chained hash per
	// BlockSize-token block, ceil(prompt/BlockSize) of them (the Mooncake
	// convention). Blocks wholly inside a group's shared prefix hash the
	// same across the group; all others are unique to the request. At most
	// MaxBlockSize: a longer block never fills.
	BlockSize int
	// Turns, unless it is fixed:1 (or unset), groups requests into
	// sessions of that many turns, drawn per session. A turn's prompt is
	// the session's history (the previous turn's prompt and output) plus
	// a new message drawn from Prompt (the group prefix opens the first
	// turn only), so its hashes share every block the history fills. A
	// turn that would pass DefaultMaxTokens ends its session instead.
	// Arrival.Rate (or Curve) is then the rate of sessions' first turns;
	// Requests still counts rows, and sessions open when it is reached
	// are cut.
	Turns LengthSpec
	// ThinkTime is the mean, in seconds, of the exponential gap from one
	// turn's arrival to the next's in a session; > 0 with sessions, 0
	// without.
	ThinkTime float64
	// ToolVersion is the servesim build, for Meta.ToolVersion: another
	// build may draw other rows for the same seed.
	ToolVersion string
}

// DefaultSynthConfig is 1,000 Poisson requests at 1 req/s with 1,024
// prompt and 128 output tokens, seed 1.
func DefaultSynthConfig() SynthConfig {
	return SynthConfig{
		Seed:     1,
		Requests: 1000,
		Repeats:  1,
		Arrival:  ArrivalSpec{Kind: ArrivalPoisson, Rate: 1, CV: 1},
		Prompt:   LengthSpec{Kind: LengthFixed, Value: 1024},
		Output:   LengthSpec{Kind: LengthFixed, Value: 128},
		Turns:    LengthSpec{Kind: LengthFixed, Value: 1},
	}
}

// sessions reports whether c groups requests into multi-turn sessions.
func (c *SynthConfig) sessions() bool {
	return c.Turns != (LengthSpec{}) && c.Turns != (LengthSpec{Kind: LengthFixed, Value: 1})
}

// FieldError is an invalid field of a configuration struct (SynthConfig
// here, replay.Config), named by its path in the struct ("Arrival.Rate"),
// so that a caller which set the field from a flag or a key can name that
// instead (errors.As).
type FieldError struct {
	Struct string // whose field, as errors name it: "synth: SynthConfig"
	Field  string
	Msg    string // what is wrong, without the field's name
	// With are the other fields Msg names, spelt as Field is, for a rule
	// between fields: a caller that names Field by its flag names these
	// by theirs too.
	With []string
}

func (e *FieldError) Error() string { return e.Struct + "." + e.Field + ": " + e.Msg }

func fieldErr(field, format string, args ...any) error {
	return fieldErrWith(field, nil, format, args...)
}

// fieldErrWith is fieldErr for a rule that names the fields with in its
// message too.
func fieldErrWith(field string, with []string, format string, args ...any) error {
	return &FieldError{Struct: "synth: SynthConfig", Field: field, Msg: fmt.Sprintf(format, args...), With: with}
}

// Validate reports every invalid field, each as a *FieldError (joined).
func (c *SynthConfig) Validate() error {
	var errs []error
	// A trace of no measured rows leaves every later verb nothing to do.
	if c.PromptLengths == nil && c.Requests < 1 {
		errs = append(errs, fieldErr("Requests", "want at least 1, got %d", c.Requests))
	}
	if c.PromptLengths != nil {
		if c.Repeats < 1 {
			errs = append(errs, fieldErr("Repeats", "must be >= 1 with prompt lengths, got %d", c.Repeats))
		}
		if len(c.PromptLengths) == 0 { // warm-up rows take the first length
			errs = append(errs, fieldErr("PromptLengths", "want at least one length (nil: no matrix), got none"))
		}
		for _, l := range c.PromptLengths {
			if l < 0 || l > DefaultMaxTokens {
				errs = append(errs, fieldErr("PromptLengths", "%d is outside [0, %d]", l, DefaultMaxTokens))
			}
		}
	}
	if c.Warmup < 0 {
		errs = append(errs, fieldErr("Warmup", "must be >= 0, got %d", c.Warmup))
	}
	errs = append(errs, c.Arrival.validate())
	errs = append(errs, c.validateRows())
	if c.Resample == nil {
		errs = append(errs, c.Prompt.validate("Prompt"), c.Output.validate("Output"))
	} else if len(c.Resample.pairs) == 0 {
		errs = append(errs, fieldErr("Resample", "the source trace has no row to draw lengths from: warm-up rows and failed ones (in the source or in the run that recorded it) are left out"))
	} else if c.PromptLengths != nil {
		errs = append(errs, fieldErrWith("Resample", []string{"PromptLengths"}, "draws the prompt lengths too: it conflicts with PromptLengths"))
	}
	if c.PrefixGroups < 0 {
		errs = append(errs, fieldErr("PrefixGroups", "must be >= 0, got %d", c.PrefixGroups))
	}
	if c.PrefixGroups > 0 {
		if c.PrefixTokens <= 0 || c.PrefixTokens > DefaultMaxTokens {
			errs = append(errs, fieldErr("PrefixTokens", "must be in (0, %d] with prefix groups, got %d", DefaultMaxTokens, c.PrefixTokens))
		}
		if c.BlockSize <= 0 {
			errs = append(errs, fieldErr("BlockSize", "must be > 0 with prefix groups, got %d", c.BlockSize))
		} else if c.PrefixTokens > 0 && int64(c.PrefixTokens) < int64(c.BlockSize) {
			// Only blocks wholly inside the prefix are shared: a shorter
			// prefix would make groups that share nothing.
			errs = append(errs, fieldErr("PrefixTokens", "%d prefix tokens fill no %d-token block, so no block would be shared: want at least the block size", c.PrefixTokens, c.BlockSize))
		}
		// The prefix is added to each drawn prompt; past the bound, Import
		// would refuse the trace written.
		if n := c.longestDrawnPrompt(); c.PrefixTokens > 0 && int64(n)+int64(c.PrefixTokens) > DefaultMaxTokens {
			errs = append(errs, fieldErr("PrefixTokens", "%d prefix tokens on prompts of up to %d make prompts past %d tokens", c.PrefixTokens, n, DefaultMaxTokens))
		}
	}
	if c.sessions() {
		errs = append(errs, c.validateSessions())
	} else if c.ThinkTime != 0 { // it would space no turns, and go unrecorded
		errs = append(errs, fieldErrWith("ThinkTime", []string{"Turns"}, "spaces the turns of sessions, which need Turns of more than one turn; want 0 without them, got %v", c.ThinkTime))
	}
	switch {
	case c.BlockSize < 0:
		errs = append(errs, fieldErr("BlockSize", "must be >= 0, got %d", c.BlockSize))
	case c.BlockSize > MaxBlockSize:
		errs = append(errs, fieldErr("BlockSize", "%d tokens is past any prompt: want a block size in [0, %d]", c.BlockSize, MaxBlockSize))
	}
	return errors.Join(errs...)
}

// validate checks the kind, the rate or curve, and a gamma CV apart, so
// that a bad one does not hide another.
func (a *ArrivalSpec) validate() error {
	var errs []error
	if a.Kind != ArrivalConstant && a.Kind != ArrivalPoisson && a.Kind != ArrivalGamma {
		errs = append(errs, fieldErr("Arrival.Kind", "want constant, poisson or gamma, got %q", a.Kind))
	}
	switch {
	case a.Curve != nil && a.Rate != 0:
		errs = append(errs, fieldErrWith("Arrival.Rate", []string{"Arrival.Curve"}, "the rate curve sets the rate: want 0 with Arrival.Curve, got %v", a.Rate))
	case a.Curve != nil:
		errs = append(errs, validateCurve(a.Curve))
	case !(a.Rate > 0) || math.IsInf(a.Rate, 0):
		errs = append(errs, fieldErr("Arrival.Rate", "must be positive and finite, got %v", a.Rate))
	case a.Rate > MaxArrivalRate:
		errs = append(errs, fieldErr("Arrival.Rate", "%v requests/s is past the clock's resolution: want at most %g (a 1 µs mean gap; arrivals are kept to the ns)", a.Rate, float64(MaxArrivalRate)))
	}
	if a.Kind == ArrivalGamma && (!(a.CV > 0) || a.CV > 100) {
		errs = append(errs, fieldErr("Arrival.CV", "must be in (0, 100] for gamma arrivals, got %v", a.CV))
	}
	return errors.Join(errs...)
}

// validateSessions checks Turns and ThinkTime, and that the mode takes
// sessions: the matrix and resampling set whole prompts.
func (c *SynthConfig) validateSessions() error {
	var errs []error
	if err := c.Turns.validate("Turns"); err != nil {
		errs = append(errs, err)
	} else if (c.Turns.Kind == LengthFixed && c.Turns.Value < 1) || (c.Turns.Kind == LengthUniform && c.Turns.Min < 1) {
		errs = append(errs, fieldErr("Turns", "a session has at least 1 turn, got %s", c.Turns.spec()))
	}
	if c.PromptLengths != nil {
		errs = append(errs, fieldErrWith("Turns", []string{"PromptLengths"}, "sessions grow each prompt from its history: they conflict with PromptLengths"))
	}
	if c.Resample != nil {
		errs = append(errs, fieldErrWith("Turns", []string{"Prompt", "Resample"}, "sessions draw each turn's new message from Prompt: they conflict with Resample, which draws whole prompts"))
	}
	// Under 1 µs, a session's turns would come closer than MaxArrivalRate
	// lets rows come.
	if !(c.ThinkTime >= 1/MaxArrivalRate) || c.ThinkTime > maxSeconds {
		errs = append(errs, fieldErr("ThinkTime", "the mean gap between a session's turns must be at least %g s (a 1 µs gap, as for the rate) and at most %d s, got %v", 1/MaxArrivalRate, int64(maxSeconds), c.ThinkTime))
	}
	errs = append(errs, c.validateRowRate())
	return errors.Join(errs...)
}

// validateRowRate refuses sessions whose rows, Arrival.Rate × the mean
// turns, come faster than MaxArrivalRate: the cap is on rows, and the
// rate only opens sessions.
func (c *SynthConfig) validateRowRate() error {
	rate, field := c.Arrival.Rate, "Arrival.Rate"
	if c.Arrival.Curve != nil {
		if validateCurve(c.Arrival.Curve) != nil {
			return nil
		}
		rate, field = newRateCurve(c.Arrival.Curve).peak(), "Arrival.Curve"
	}
	if !(rate > 0) || rate > MaxArrivalRate || c.Turns.validate("Turns") != nil {
		return nil // reported on their own
	}
	turns := c.meanTurns()
	if rows := rate * turns; rows > MaxArrivalRate {
		return fieldErr(field, "%v sessions/s of %s turns (%.4g on average) make about %.4g requests/s, past the clock's resolution: want at most %g requests/s (a 1 µs mean gap; arrivals are kept to the ns)", rate, c.Turns.spec(), turns, rows, float64(MaxArrivalRate))
	}
	return nil
}

// meanTurns is the mean of the turns drawn: for a lognormal, that of its
// rounded, clamped draws, which is not its Mean (a clamp at 1 raises it,
// one at a max lowers it).
func (c *SynthConfig) meanTurns() float64 {
	switch l := c.Turns; l.Kind {
	case LengthFixed:
		return float64(l.Value)
	case LengthUniform:
		return (float64(l.Min) + float64(l.Max)) / 2
	case LengthLognormal:
		d := newLengthDist(l, 0)
		return d.mean()
	}
	return 1
}

// exactMeanUpTo bounds the counts whose probabilities lengthDist.mean
// sums one by one; past it, rounding shifts the mean by next to nothing
// and the continuous lognormal stands in.
const exactMeanUpTo = 4096

// mean is the mean of a lognormal's draws: round(X) clamped to [lo, hi].
func (d *lengthDist) mean() float64 {
	if d.sigma == 0 {
		return math.Min(math.Max(math.Round(math.Exp(d.mu)), d.lo), d.hi)
	}
	if d.hi <= d.lo { // every draw is clamped to hi
		return d.hi
	}
	// P(X < x) for the lognormal X.
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(math.Log(x)-d.mu)/(d.sigma*math.Sqrt2)) }
	// Draws below lo+0.5 round or clamp to lo; at or past hi-0.5, to hi.
	m := d.lo * cdf(d.lo+0.5)
	k := d.lo + 1
	for ; k < d.hi && k <= exactMeanUpTo; k++ {
		m += k * (cdf(k+0.5) - cdf(k-0.5))
	}
	if k < d.hi { // E[X; k-0.5 <= X < hi-0.5], the lognormal's partial mean
		z := func(x float64) float64 { return (math.Log(x) - d.mu - d.sigma*d.sigma) / (d.sigma * math.Sqrt2) }
		m += math.Exp(d.mu+d.sigma*d.sigma/2) * 0.5 * (math.Erfc(z(k-0.5)) - math.Erfc(z(d.hi-0.5)))
	}
	return m + d.hi*(1-cdf(d.hi-0.5))
}

// longestDrawnPrompt is the most tokens a prompt can be drawn with,
// before the shared prefix is added; for a lognormal without a max, its
// min (draws are clamped below the bound, prefix included).
func (c *SynthConfig) longestDrawnPrompt() int32 {
	switch {
	case c.Resample != nil:
		var n int32
		for _, p := range c.Resample.pairs {
			n = max(n, p[0])
		}
		return n
	case c.PromptLengths != nil:
		var n int32
		for _, l := range c.PromptLengths {
			n = max(n, l)
		}
		return n
	}
	switch l := c.Prompt; l.Kind {
	case LengthFixed:
		return l.Value
	case LengthUniform:
		return l.Max
	case LengthLognormal:
		return max(l.Min, l.Max)
	}
	return 0
}

// rows is the number of rows c makes, warm-up included, and the field
// that sets it; ok is false when it overflows int.
func (c *SynthConfig) rows() (n int, field string, ok bool) {
	if c.PromptLengths != nil {
		if len(c.PromptLengths) > 0 && c.Repeats > (math.MaxInt-max(c.Warmup, 0))/len(c.PromptLengths) {
			return 0, "Repeats", false
		}
		return c.Warmup + len(c.PromptLengths)*c.Repeats, "Repeats", true
	}
	if c.Requests > math.MaxInt-max(c.Warmup, 0) {
		return 0, "Requests", false
	}
	return c.Warmup + c.Requests, "Requests", true
}

// validateRows refuses a row count past int's range, and one whose
// arrivals at the rate asked for would (on average, for the random
// processes) run past the 2^32 s a trace's clock holds: that would fail
// only once that many rows had been written. With sessions the rate
// opens sessions, so only the starts of as few as can fill the rows count.
func (c *SynthConfig) validateRows() error {
	if c.Warmup < 0 || (c.Requests < 0 && c.PromptLengths == nil) || (c.Repeats < 1 && c.PromptLengths != nil) {
		return nil // reported on their own
	}
	n, field, ok := c.rows()
	if !ok {
		if c.PromptLengths != nil {
			return fieldErrWith(field, []string{"PromptLengths", "Warmup"}, "%d × %d lengths of PromptLengths and Warmup %d overflow the row count", c.Repeats, len(c.PromptLengths), c.Warmup)
		}
		return fieldErrWith(field, []string{"Warmup"}, "%d and Warmup %d overflow the row count", c.Requests, c.Warmup)
	}
	if c.Arrival.Curve != nil {
		return c.validateCurveRows(n)
	}
	rate := c.Arrival.Rate
	if n < 2 || !(rate > 0) || math.IsInf(rate, 0) {
		return nil
	}
	if c.sessions() {
		// The rate opens sessions: the fewest that can fill n rows must
		// start within the clock; later turns past it end their session.
		turns := c.mostTurns()
		starts := (n-1)/turns + 1
		if span := float64(starts-1) / rate; span > maxSeconds {
			rows, with := c.rowsDesc(n)
			return fieldErrWith("Arrival.Rate", append(with, "Turns"), "%v sessions/s is too low for %s in sessions of at most %d Turns: the %d or more sessions they open would span %.4g s, past the 2^32 s a trace's arrivals can reach", rate, rows, turns, starts, span)
		}
		return nil
	}
	if span := float64(n-1) / rate; span > maxSeconds {
		rows, with := c.rowsDesc(n)
		return fieldErrWith("Arrival.Rate", with, "%v requests/s is too low for %s: they would span %.4g s, past the 2^32 s a trace's arrivals can reach", rate, rows, span)
	}
	return nil
}

// rowsDesc tells how c comes to n rows, naming the fields that set the
// count, which it returns too (for FieldError.With): a span too long for
// the clock is the rate's fault first, the count's second.
func (c *SynthConfig) rowsDesc(n int) (string, []string) {
	if c.Warmup > 0 { // warm-up rows take their share of the span: name them
		if c.PromptLengths != nil {
			return fmt.Sprintf("%d rows (%d lengths of PromptLengths × Repeats %d + Warmup %d)", n, len(c.PromptLengths), c.Repeats, c.Warmup), []string{"PromptLengths", "Repeats", "Warmup"}
		}
		return fmt.Sprintf("%d rows (Requests %d + Warmup %d)", n, c.Requests, c.Warmup), []string{"Requests", "Warmup"}
	}
	if c.PromptLengths != nil {
		return fmt.Sprintf("%d rows (%d PromptLengths × %d Repeats, warm-up included)", n, len(c.PromptLengths), c.Repeats), []string{"PromptLengths", "Repeats"}
	}
	return fmt.Sprintf("%d rows (Requests, warm-up included)", n), []string{"Requests"}
}

// validateCurveRows is validateRows under a rate curve: the last event
// of the process, where the curve expects it, is within the clock.
func (c *SynthConfig) validateCurveRows(n int) error {
	if n < 2 || validateCurve(c.Arrival.Curve) != nil {
		return nil // reported on their own
	}
	rc := newRateCurve(c.Arrival.Curve)
	if c.sessions() {
		turns := c.mostTurns()
		starts := (n-1)/turns + 1
		if end := rc.at(float64(starts - 1)); end > maxSeconds {
			rows, with := c.rowsDesc(n)
			return fieldErrWith("Arrival.Curve", append(with, "Turns"), "the rate curve is too low for %s in sessions of at most %d Turns: the %d or more sessions they open would reach %.4g s, past the 2^32 s a trace's arrivals can reach", rows, turns, starts, end)
		}
		return nil
	}
	if end := rc.at(float64(n - 1)); end > maxSeconds {
		rows, with := c.rowsDesc(n)
		return fieldErrWith("Arrival.Curve", with, "the rate curve is too low for %s: they would reach %.4g s, past the 2^32 s a trace's arrivals can reach", rows, end)
	}
	return nil
}

// mostTurns is the most turns a session can be drawn with, at least 1
// (an invalid Turns is reported on its own).
func (c *SynthConfig) mostTurns() int {
	n := DefaultMaxTokens // a lognormal without a max is clamped there
	switch l := c.Turns; l.Kind {
	case LengthFixed:
		n = int(l.Value)
	case LengthUniform:
		n = int(l.Max)
	case LengthLognormal:
		if l.Max > 0 {
			n = int(l.Max)
		}
	}
	return max(n, 1)
}

func (l *LengthSpec) validate(name string) error {
	switch l.Kind {
	case LengthFixed:
		if l.Value < 0 || l.Value > DefaultMaxTokens {
			return fieldErr(name, "fixed length must be in [0, %d], got %d", DefaultMaxTokens, l.Value)
		}
	case LengthUniform:
		if l.Min < 0 || l.Max < l.Min || l.Max > DefaultMaxTokens {
			return fieldErr(name, "uniform needs 0 <= min <= max <= %d, got [%d, %d]", DefaultMaxTokens, l.Min, l.Max)
		}
	case LengthLognormal:
		if !(l.Mean > 0) || l.Mean > DefaultMaxTokens || !(l.CV >= 0) || l.CV > 100 || l.Min < 0 || l.Max < 0 || (l.Max > 0 && l.Max < l.Min) || l.Max > DefaultMaxTokens || l.Min > DefaultMaxTokens {
			return fieldErr(name, "lognormal needs 0 < mean <= %d, 0 <= cv <= 100 and 0 <= min <= max <= %[1]d (got mean %v cv %v [%d, %d])", DefaultMaxTokens, l.Mean, l.CV, l.Min, l.Max)
		}
	default:
		return fieldErr(name, "want a fixed, uniform or lognormal length, got kind %q", l.Kind)
	}
	return nil
}

func (l LengthSpec) String() string {
	switch l.Kind {
	case LengthFixed:
		return fmt.Sprintf("fixed(%d)", l.Value)
	case LengthUniform:
		return fmt.Sprintf("uniform(%d,%d)", l.Min, l.Max)
	}
	return fmt.Sprintf("lognormal(mean=%g,cv=%g,min=%d,max=%d)", l.Mean, l.CV, l.Min, l.Max)
}

// spec is l as ParseLengthSpec takes it ("fixed:3"), for errors about a
// spec the user typed; String is the trace metadata's form.
func (l LengthSpec) spec() string {
	switch l.Kind {
	case LengthFixed:
		return fmt.Sprintf("fixed:%d", l.Value)
	case LengthUniform:
		return fmt.Sprintf("uniform:%d:%d", l.Min, l.Max)
	case LengthLognormal:
		if l.Min == 0 && l.Max == 0 {
			return fmt.Sprintf("lognormal:%g:%g", l.Mean, l.CV)
		}
		return fmt.Sprintf("lognormal:%g:%g:%d:%d", l.Mean, l.CV, l.Min, l.Max)
	}
	return l.String()
}

// streamSeed names an independent random stream: each subsystem draws
// from PCG(seed, fnv64a(name)) so that changing one never shifts another.
func streamSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func newStream(seed uint64, name string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, streamSeed(name)))
}

// synthSource is a synthesized trace's Source.
const synthSource = "synthetic"

// Synthesize returns a streaming Reader that generates the trace c
// describes, deterministically for c.Seed, in constant memory; with
// sessions, in memory for those open at once (about Arrival.Rate ×
// ThinkTime × mean turns of them). The rows are bit-identical on one
// GOARCH; Go may round floating-point draws differently on another (fused
// multiply-add, assembly math.Exp).
func Synthesize(c SynthConfig) (Reader, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	total, _, _ := c.rows()
	var prefix int32
	if c.PrefixGroups > 0 {
		prefix = c.PrefixTokens
	}
	m := Meta{Source: synthSource, BlockSize: c.BlockSize, ToolVersion: c.ToolVersion}
	m.Set("seed", strconv.FormatUint(c.Seed, 10))
	m.Set("arrival", c.arrivalMeta())
	if c.PromptLengths != nil {
		ls := make([]string, len(c.PromptLengths))
		for i, l := range c.PromptLengths {
			ls[i] = strconv.Itoa(int(l))
		}
		m.Set("prompt_matrix", strings.Join(ls, ",")+" x"+strconv.Itoa(c.Repeats))
	} else {
		m.Set("requests", strconv.Itoa(c.Requests))
	}
	if c.Resample != nil {
		m.Set("lengths", "resample("+c.Resample.Source+")")
		for f, sum := range c.Resample.Checksums {
			m.SetChecksum(f, sum)
		}
		if c.Resample.Slice != "" {
			m.Set("resample_slice", c.Resample.Slice)
		}
		if c.Resample.LengthEstimate != "" {
			m.Set("length_estimate", c.Resample.LengthEstimate)
		}
	} else {
		if c.PromptLengths == nil {
			m.Set("prompt", c.Prompt.String())
		}
		m.Set("output", c.Output.String())
	}
	if c.Warmup > 0 {
		m.Set("warmup", strconv.Itoa(c.Warmup))
	}
	if c.PrefixGroups > 0 {
		m.Set("prefix_groups", fmt.Sprintf("%d x %d tokens", c.PrefixGroups, c.PrefixTokens))
	}
	if c.sessions() {
		m.Set("turns", c.Turns.String())
		m.Set("think_time", strconv.FormatFloat(c.ThinkTime, 'g', -1, 64))
	}
	g := &synth{
		c: c, meta: m, total: total,
		arr:    newStream(c.Seed, "synth.arrivals"),
		lens:   newStream(c.Seed, "synth.lengths"),
		outs:   newStream(c.Seed, "synth.lengths.output"),
		groups: newStream(c.Seed, "synth.groups"),
		salt:   mix64(c.Seed ^ streamSeed("synth.hashes")),
		prompt: newLengthDist(c.Prompt, prefix),
		output: newLengthDist(c.Output, 0),
	}
	if c.Arrival.Curve != nil {
		g.curve = newRateCurve(c.Arrival.Curve)
	}
	if c.sessions() {
		g.turns = newLengthDist(c.Turns, 0)
		g.turnDraws = newStream(c.Seed, "synth.turns")
		g.think = newStream(c.Seed, "synth.think")
	}
	g.cur.Reset()
	return g, nil
}

// arrivalMeta describes the arrival process for Meta "arrival": with
// sessions its rate is of sessions opened, not of rows.
func (c *SynthConfig) arrivalMeta() string {
	arr := c.Arrival.Kind + "(rate=" + strconv.FormatFloat(c.Arrival.Rate, 'g', -1, 64)
	if c.Arrival.Curve != nil {
		arr = c.Arrival.Kind + "(rate_curve=" + formatCurve(c.Arrival.Curve)
	}
	if c.sessions() {
		arr += " sessions/s"
	}
	if c.Arrival.Kind == ArrivalGamma {
		arr += ",cv=" + strconv.FormatFloat(c.Arrival.CV, 'g', -1, 64)
	}
	return arr + ")"
}

type synth struct {
	c               SynthConfig
	meta            Meta
	total, i        int
	t               int64
	arr, lens, outs *rand.Rand
	groups          *rand.Rand // one stream each: changing one spec never shifts another's draws
	salt            uint64
	prompt, output  lengthDist
	ids             idArena
	cur             Request
	err             error
	curve           *rateCurve // nil for a constant rate
	tau             float64    // with a curve: the unit-rate process's time

	// Sessions only: open ones by next turn's arrival, the next to open
	// (nil until drawn), and how many were opened.
	open             sessionHeap
	pending          *session
	startErr         error // why no session opens any more
	opened           int
	endedByClock     int // sessions whose next turn fell past the clock
	endedByContext   int // sessions whose next prompt passed DefaultMaxTokens
	turns            lengthDist
	turnDraws, think *rand.Rand
}

func (g *synth) Meta() Meta   { return g.meta }
func (g *synth) At() *Request { return &g.cur }
func (g *synth) Err() error   { return g.err }
func (g *synth) Close() error { return nil }

func (g *synth) Next() bool {
	if g.err != nil || g.i >= g.total {
		return false
	}
	if g.c.sessions() {
		return g.nextTurn()
	}
	c := &g.c
	r := &g.cur
	row, hashes := g.startRow()
	if row > 0 || g.curve != nil { // a curve may open the trace past 0 s
		if g.t, g.err = g.arrivalAfter(row, g.t); g.err != nil {
			return false
		}
	}
	r.Arrival = g.t
	switch {
	case c.Resample != nil:
		r.PromptTokens, r.OutputTokens = c.Resample.draw(g.lens)
	case c.PromptLengths != nil:
		j := 0
		if !r.Warmup {
			j = (row - c.Warmup) / c.Repeats
		}
		r.PromptTokens, r.OutputTokens = c.PromptLengths[j], g.output.draw(g.outs)
	default:
		r.PromptTokens = g.prompt.draw(g.lens)
		r.OutputTokens = g.output.draw(g.outs)
	}
	group := -1
	if c.PrefixGroups > 0 {
		group = g.groups.IntN(c.PrefixGroups)
		r.PromptTokens += c.PrefixTokens
	}
	if c.BlockSize > 0 {
		r.PrefixHashes = blockHashes(hashes, g.salt, int(r.PromptTokens), c.BlockSize, group, int(c.PrefixTokens), -1, uint64(row))
	}
	return true
}

// startRow clears the current row for the next, g.i, and gives it its
// id and warm-up mark; it returns the row's index and the previous row's
// hashes, whose storage the new ones reuse.
func (g *synth) startRow() (row int, hashes []uint64) {
	r := &g.cur
	hashes = r.PrefixHashes
	r.Reset()
	r.PrefixHashes = nil
	row = g.i
	g.i++
	r.ID = g.ids.itoa(row)
	r.Warmup = row < g.c.Warmup
	return row, hashes
}

// arrivalAfter is the arrival of the k-th (k > 0; with a curve, k >= 0)
// event of the arrival process, the previous one at prev: a row, or a
// session's first turn.
func (g *synth) arrivalAfter(k int, prev int64) (int64, error) {
	if g.curve != nil {
		return g.curveArrival(k)
	}
	a := g.c.Arrival
	t := prev
	switch a.Kind {
	case ArrivalConstant:
		t = int64(math.Round(float64(k) * 1e9 / a.Rate))
	case ArrivalPoisson, ArrivalGamma:
		t += int64(math.Round(g.unitGap() / a.Rate * 1e9))
	}
	if t < 0 || t > maxSeconds*1e9 {
		unit := "requests/s"
		if g.c.sessions() {
			unit = "sessions/s"
		}
		return t, g.pastClock(k, "Arrival.Rate", fmt.Sprintf("%v %s is too low", a.Rate, unit))
	}
	return t, nil
}

// pastClock is the error for the k-th event of the arrival process drawn
// past the trace's clock: Validate checks the expected span only, and a
// random process can run longer. Like Validate's, it is a FieldError on
// the rate (field) naming the fields that set the row count too, so that
// a caller can report it as the bad input it is.
func (g *synth) pastClock(k int, field, cause string) error {
	rows, with := g.c.rowsDesc(g.total)
	what := fmt.Sprintf("row %d", k+1)
	if g.c.sessions() {
		what = fmt.Sprintf("session %d's first turn", k+1)
		// Field before value, as the user typed it: "Turns fixed:2",
		// which a caller spells "--turns fixed:2".
		rows += " in sessions of Turns " + g.c.Turns.spec()
		with = append(with, "Turns")
		if g.endedByClock > 0 { // those cut short left more rows to later sessions
			n, its := endedEarly(g.endedByClock)
			rows += fmt.Sprintf("; %s ended before %s last turn, the next past the clock at ThinkTime %v s", n, its, g.c.ThinkTime)
			with = append(with, "ThinkTime")
		}
		if g.endedByContext > 0 { // as are those whose history filled the context
			n, its := endedEarly(g.endedByContext)
			rows += fmt.Sprintf("; %s ended before %s last turn, %s next prompt past %d tokens at Prompt %s and Output %s", n, its, its, DefaultMaxTokens, g.c.Prompt.spec(), g.c.Output.spec())
			with = append(with, "Prompt", "Output")
		}
	}
	return fieldErrWith(field, with, "the arrivals drawn run past the 2^32 s a trace's clock holds at %s: %s for %s", what, cause, rows)
}

// endedEarly counts the sessions cut short, noun and pronoun agreeing
// with the count: "1 session ended before its last turn".
func endedEarly(n int) (count, pronoun string) {
	if n == 1 {
		return numfmt.Count(n, "session"), "its"
	}
	return numfmt.Count(n, "session"), "their"
}

// unitGap draws the next gap of the Poisson or gamma process at rate 1.
func (g *synth) unitGap() float64 {
	a := g.c.Arrival
	if a.Kind == ArrivalPoisson {
		return g.arr.ExpFloat64()
	}
	shape := 1 / (a.CV * a.CV)
	if math.IsInf(shape, 1) { // Gamma(k)/k is 1: the limit as CV -> 0
		return 1
	}
	return gammaDraw(g.arr, shape) / shape
}

// curveArrival is arrivalAfter under a rate curve: the unit-rate
// process's k-th event, mapped onto the curve.
func (g *synth) curveArrival(k int) (int64, error) {
	a := g.c.Arrival
	switch {
	case k == 0:
	case a.Kind == ArrivalConstant:
		g.tau = float64(k)
	default:
		g.tau += g.unitGap()
	}
	// In float: a time past the clock would overflow int64 ns.
	ns := math.Round(g.curve.at(g.tau) * 1e9)
	if !(ns <= maxSeconds*1e9) {
		return 0, g.pastClock(k, "Arrival.Curve", "the rate curve is too low")
	}
	return int64(ns), nil
}

// session is one open conversation of a session trace.
type session struct {
	n       int   // order of opening, from 0: its session_id
	group   int   // prefix group, -1 for none
	next    int64 // arrival of its next turn
	history int32 // the last turn's prompt and output tokens; 0 before the first
	left    int   // turns still to come, the next included
}

// sessionHeap orders open sessions by their next turn's arrival, then by
// opening, so that rows come in arrival order.
type sessionHeap []*session

func (h sessionHeap) Len() int { return len(h) }
func (h sessionHeap) Less(i, j int) bool {
	return h[i].next < h[j].next || (h[i].next == h[j].next && h[i].n < h[j].n)
}
func (h sessionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)   { *h = append(*h, x.(*session)) }
func (h *sessionHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// nextTurn makes the next row of a session trace: the earliest next turn
// of the open sessions and the one to open next.
func (g *synth) nextTurn() bool {
	c := &g.c
	for {
		s, err := g.nextSession()
		if err != nil {
			g.err = err
			return false
		}
		next := g.prompt.draw(g.lens)
		prompt := int64(s.history) + int64(next)
		if s.history == 0 && s.group >= 0 {
			prompt += int64(c.PrefixTokens)
		}
		if prompt > DefaultMaxTokens {
			g.endedByContext++ // the conversation fills the context: it ends
			continue
		}
		g.emitTurn(s, int32(prompt))
		return true
	}
}

// nextSession removes and returns the session whose turn comes next,
// opening a new one when its first turn is the earliest.
func (g *synth) nextSession() (*session, error) {
	if g.pending == nil && g.startErr == nil {
		g.pending, g.startErr = g.openSession()
	}
	if g.pending == nil { // no session opens before the clock ends: the open ones go on
		if len(g.open) == 0 {
			return nil, g.startErr
		}
		return heap.Pop(&g.open).(*session), nil
	}
	if len(g.open) > 0 && g.open[0].next <= g.pending.next { // on a tie, the session opened first
		return heap.Pop(&g.open).(*session), nil
	}
	s := g.pending
	g.pending = nil
	return s, nil
}

// openSession draws the next session: its first turn's arrival, its
// turns and its prefix group.
func (g *synth) openSession() (*session, error) {
	t := int64(0)
	if g.opened > 0 || g.curve != nil { // a curve may open the trace past 0 s
		var err error
		if t, err = g.arrivalAfter(g.opened, g.t); err != nil {
			return nil, err
		}
	}
	g.t = t // the last first turn's arrival, as the process goes on from it
	s := &session{n: g.opened, group: -1, next: t, left: int(g.turns.draw(g.turnDraws))}
	if g.c.PrefixGroups > 0 {
		s.group = g.groups.IntN(g.c.PrefixGroups)
	}
	g.opened++
	return s, nil
}

// emitTurn fills the current row with s's next turn of prompt tokens and
// schedules the turn after it, if any.
func (g *synth) emitTurn(s *session, prompt int32) {
	c := &g.c
	r := &g.cur
	row, hashes := g.startRow()
	r.Arrival = s.next
	r.SessionID = g.ids.itoa(s.n)
	r.PromptTokens, r.OutputTokens = prompt, g.output.draw(g.outs)
	if c.BlockSize > 0 {
		r.PrefixHashes = blockHashes(hashes, g.salt, int(prompt), c.BlockSize, s.group, int(c.PrefixTokens), s.n, uint64(row))
	}
	s.history = r.PromptTokens + r.OutputTokens
	if s.left--; s.left <= 0 {
		return
	}
	// In float: a long gap's ns would overflow int64.
	next := float64(s.next) + math.Round(g.think.ExpFloat64()*c.ThinkTime*1e9)
	if next > maxSeconds*1e9 {
		g.endedByClock++ // past the trace's clock: the session ends
		return
	}
	s.next = int64(next)
	heap.Push(&g.open, s)
}

// blockHashes appends ceil(prompt/block) chained hashes: block i hashes
// (hash of block i-1, content of block i). The content of a block that
// lies wholly inside the group's shared prefix is (group, i); past it, a
// session's (session >= 0) full block is (session, i), the same in each
// turn, as the conversation's tokens are; any other block's content is
// unique to the row, so every later hash is too. A turn's partial last
// block is such a block: the next turn fills it with other tokens.
func blockHashes(dst []uint64, salt uint64, prompt, block, group, prefix, session int, row uint64) []uint64 {
	dst = nonNil(dst)
	h := salt
	for i := 0; i*block < prompt; i++ {
		var content uint64
		switch {
		case group >= 0 && (i+1)*block <= prefix:
			content = mix64(uint64(group)<<1 | 1)
		case session >= 0 && (i+1)*block <= prompt:
			content = mix64(uint64(session)<<1) ^ 0x6a09e667f3bcc909
		default:
			content = mix64(row<<1) ^ 0x9e3779b97f4a7c15
		}
		h = mix64(h ^ mix64(content+uint64(i)))
		dst = append(dst, h)
	}
	return dst
}

// mix64 is the splitmix64 finaliser, a bijection on uint64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// lengthDist is a LengthSpec with its lognormal parameters worked out
// once, not per draw (the logs cost as much as the draw itself).
type lengthDist struct {
	LengthSpec
	mu, sigma, lo, hi float64
}

// newLengthDist leaves room for prefix tokens added to each draw.
func newLengthDist(l LengthSpec, prefix int32) lengthDist {
	s2 := math.Log1p(l.CV * l.CV)
	d := lengthDist{LengthSpec: l, mu: math.Log(l.Mean) - s2/2, sigma: math.Sqrt(s2)}
	d.lo, d.hi = math.Max(1, float64(l.Min)), float64(DefaultMaxTokens-max(prefix, 0))
	if l.Max > 0 {
		d.hi = float64(l.Max)
	}
	return d
}

func (d *lengthDist) draw(rng *rand.Rand) int32 {
	switch d.Kind {
	case LengthFixed:
		return d.Value
	case LengthUniform:
		return d.Min + int32(rng.Int64N(int64(d.Max-d.Min)+1))
	}
	v := math.Round(math.Exp(d.mu + d.sigma*rng.NormFloat64()))
	return int32(math.Min(math.Max(v, d.lo), d.hi))
}

// gammaDraw draws from Gamma(k, 1) (Marsaglia and Tsang, 2000).
func gammaDraw(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gammaDraw(rng, k+1) * math.Pow(rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// Empirical is the joint distribution of (prompt, output) lengths of a
// trace, for resampling. It holds one entry per distinct pair.
type Empirical struct {
	Source    string
	Checksums map[string]string // the source's input files, recorded in the synthetic trace's Meta
	// Slice is the source's window (its Meta "slice"), "" for a whole
	// trace: a window's lengths are not the files', so it is recorded too.
	Slice string
	// LengthEstimate is how the source's token counts were estimated from
	// text (its Meta "length_estimate"), "" for counted tokens: the
	// resampled lengths are the same estimates.
	LengthEstimate string

	pairs [][2]int32
	cum   []uint64 // cumulative counts, parallel to pairs
}

// NewEmpirical reads r to the end (without closing it) and keeps the
// length pairs of its non-warm-up, non-failed rows. A row that failed,
// in the source trace or in the run that recorded it, is left out: its
// lengths are not those of traffic that was served (a proxy's failed
// row often has 0 output tokens).
func NewEmpirical(r Reader) (*Empirical, error) {
	counts := map[[2]int32]uint64{}
	for r.Next() {
		q := r.At()
		if q.Warmup || q.SourceFailed || q.Error != "" {
			continue
		}
		counts[[2]int32{q.PromptTokens, q.OutputTokens}]++
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	src := r.Meta()
	e := &Empirical{Source: src.Source, Checksums: src.Clone().Checksums, Slice: src.Extra["slice"], LengthEstimate: src.Extra["length_estimate"]}
	for p := range counts {
		e.pairs = append(e.pairs, p)
	}
	sort.Slice(e.pairs, func(i, j int) bool {
		a, b := e.pairs[i], e.pairs[j]
		return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])
	})
	var cum uint64
	e.cum = make([]uint64, len(e.pairs))
	for i, p := range e.pairs {
		cum += counts[p]
		e.cum[i] = cum
	}
	return e, nil
}

func (e *Empirical) draw(rng *rand.Rand) (int32, int32) {
	u := rng.Uint64N(e.cum[len(e.cum)-1])
	i := sort.Search(len(e.cum), func(i int) bool { return e.cum[i] > u })
	return e.pairs[i][0], e.pairs[i][1]
}

// ParseTokenCount parses a token count given as text: decimal digits,
// without a sign or spaces (which strconv.ParseInt would take or refuse
// as "not an integer"), in [0, DefaultMaxTokens]. The error quotes s and
// gives the range.
func ParseTokenCount(s string) (int32, error) { return parseSpecCount(s, "token count") }

// parseSpecCount is ParseTokenCount for a count of what (its errors' noun).
func parseSpecCount(s, what string) (int32, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a %s: want digits (no sign), in [0, %d]", s, what, DefaultMaxTokens)
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n > DefaultMaxTokens {
		return 0, fmt.Errorf("%q is out of range: want a %s in [0, %d]", s, what, DefaultMaxTokens)
	}
	return int32(n), nil
}

// parseLognormalParam parses a lognormal's mean or cv (name) in spec: a
// number past what a float64 holds is out of range, not malformed.
func parseLognormalParam(kind, spec, name, text string) (float64, error) {
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return v, fmt.Errorf("%s spec %q: %s %q is out of range: lognormal needs 0 < mean <= %d and 0 <= cv <= 100", kind, spec, name, text, DefaultMaxTokens)
	case err != nil:
		return v, fmt.Errorf("%s spec %q: %s %q is not a number", kind, spec, name, text)
	}
	return v, nil
}

// ParseLengthSpec parses "fixed:N", "uniform:MIN:MAX" or
// "lognormal:MEAN:CV[:MIN:MAX]" (a bare "N" means fixed) and validates it.
func ParseLengthSpec(s string) (LengthSpec, error) { return parseCountSpec(s, "length", "token count") }

// ParseTurnsSpec is ParseLengthSpec for turns per session: its errors
// speak of turns, not tokens.
func ParseTurnsSpec(s string) (LengthSpec, error) { return parseCountSpec(s, "turns", "turn count") }

// parseCountSpec parses a distribution spec of counts of unit; kind names
// the spec in errors.
func parseCountSpec(s, kind, unit string) (LengthSpec, error) {
	parts := strings.Split(s, ":")
	if len(parts) == 1 {
		parts = []string{LengthFixed, parts[0]}
	}
	var l LengthSpec
	l.Kind = parts[0]
	args := parts[1:]
	ints := func(dst ...*int32) error {
		for i, d := range dst {
			n, err := parseSpecCount(args[i], unit)
			if err != nil {
				return fmt.Errorf("%s spec %q: %w", kind, s, err)
			}
			*d = n
		}
		return nil
	}
	var err error
	switch {
	case l.Kind == LengthFixed && len(args) == 1:
		err = ints(&l.Value)
	case l.Kind == LengthUniform && len(args) == 2:
		err = ints(&l.Min, &l.Max)
	case l.Kind == LengthLognormal && (len(args) == 2 || len(args) == 4):
		if l.Mean, err = parseLognormalParam(kind, s, "mean", args[0]); err == nil {
			l.CV, err = parseLognormalParam(kind, s, "cv", args[1])
		}
		if err != nil {
			return l, err
		}
		if len(args) == 4 {
			args = args[2:]
			err = ints(&l.Min, &l.Max)
		}
	default:
		return l, fmt.Errorf("%s spec %q: want fixed:N, uniform:MIN:MAX or lognormal:MEAN:CV[:MIN:MAX]", kind, s)
	}
	if err != nil {
		return l, err
	}
	var fe *FieldError
	if err := l.validate(kind); errors.As(err, &fe) {
		return l, fmt.Errorf("%s spec %q: %s", kind, s, fe.Msg)
	} else if err != nil {
		return l, err
	}
	return l, nil
}
