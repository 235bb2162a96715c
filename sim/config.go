package sim

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/servesim/servesim/traces"
)

// Policy names accepted by ParsePolicy.
const (
	Serial      = "serial"       // one request at a time
	Fixed       = "fixed"        // static batch of BatchSize, window MaxWaitMs, run to completion
	TokenBudget = "token_budget" // static batch with Σ(prompt+max_new) ≤ TokenBudget, window MaxWaitMs
	Continuous  = "continuous"   // vLLM-style iteration-level scheduling with preemption by recompute
)

// Policies lists the policy names in a stable order.
var Policies = []string{Serial, Fixed, TokenBudget, Continuous}

// PolicyConfig selects and parameterises a scheduler policy. Fields that do
// not apply to Name are ignored.
type PolicyConfig struct {
	Name string

	BatchSize   int     // fixed: requests per batch
	MaxWaitMs   float64 // fixed, token_budget: the oldest waiting request starts a batch after this long
	TokenBudget int     // token_budget: bound on Σ(prompt + max_new) of a batch

	MaxNumSeqs          int  // continuous: running sequences at most
	MaxNumBatchedTokens int  // continuous: tokens per step at most (decode tokens + prefill chunks)
	ChunkedPrefill      bool // continuous: split prompts across steps to fill the token budget
}

// ParsePolicy returns the default configuration of the named policy:
// fixed B=8, max_wait 50 ms; token_budget 16384 tokens, max_wait 50 ms;
// continuous max_num_seqs 256, max_num_batched_tokens 8192, chunked prefill on.
func ParsePolicy(name string) (PolicyConfig, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case Serial:
		return PolicyConfig{Name: Serial}, nil
	case Fixed:
		return PolicyConfig{Name: Fixed, BatchSize: 8, MaxWaitMs: 50}, nil
	case TokenBudget:
		return PolicyConfig{Name: TokenBudget, TokenBudget: 16384, MaxWaitMs: 50}, nil
	case Continuous:
		return PolicyConfig{Name: Continuous, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, ChunkedPrefill: true}, nil
	}
	return PolicyConfig{}, fmt.Errorf("sim: unknown policy %q (want one of %s)", name, strings.Join(Policies, ", "))
}

// Validate reports the first field that is out of range for the policy.
func (p PolicyConfig) Validate() error {
	switch p.Name {
	case Serial:
	case Fixed:
		if p.BatchSize < 1 {
			return fmt.Errorf("sim: policy fixed: BatchSize = %d: want ≥ 1", p.BatchSize)
		}
		if err := checkWait(p); err != nil {
			return err
		}
	case TokenBudget:
		if p.TokenBudget < 2 {
			return fmt.Errorf("sim: policy token_budget: TokenBudget = %d: want ≥ 2", p.TokenBudget)
		}
		if err := checkWait(p); err != nil {
			return err
		}
	case Continuous:
		if p.MaxNumSeqs < 1 {
			return fmt.Errorf("sim: policy continuous: MaxNumSeqs = %d: want ≥ 1", p.MaxNumSeqs)
		}
		if p.MaxNumBatchedTokens < p.MaxNumSeqs {
			return fmt.Errorf("sim: policy continuous: MaxNumBatchedTokens = %d: want ≥ MaxNumSeqs (%d) so every running sequence can decode", p.MaxNumBatchedTokens, p.MaxNumSeqs)
		}
	default:
		return fmt.Errorf("sim: PolicyConfig.Name = %q: want one of %s", p.Name, strings.Join(Policies, ", "))
	}
	return nil
}

// MaxWaitMs bounds PolicyConfig.MaxWaitMs at 2^32 s, as arrivals are
// bounded: an arrival plus the wait stays far inside int64 nanoseconds.
const MaxWaitMs = 1 << 32 * 1e3

func checkWait(p PolicyConfig) error {
	if !(p.MaxWaitMs >= 0 && p.MaxWaitMs <= MaxWaitMs) {
		return fmt.Errorf("sim: policy %s: MaxWaitMs = %v: want a number from 0 to %.0f (2^32 s)", p.Name, p.MaxWaitMs, float64(MaxWaitMs))
	}
	return nil
}

// Config is one simulated deployment. Build it with DefaultConfig and
// override fields; Run validates it.
type Config struct {
	Policy      PolicyConfig
	BlockSize   int       // tokens per KV block
	TotalBlocks int       // KV blocks on the device (plan.Resolved: the catalog's layout, or a measured capacity)
	Step        StepTimer // step-time model; DecodeStretcher enables event skipping

	Devices int                        // devices held by the deployment (device-seconds = Devices × makespan)
	Power   func(util float64) float64 // watts per device at busy fraction util; nil = energy not reported

	// MaxNewTokens caps each request's output (0 = no cap). Static policies
	// reserve prompt + MaxNewTokens of KV per request (within MaxModelLen),
	// as real static batchers must: they cannot know the output length in
	// advance.
	MaxNewTokens int
	// MaxModelLen is the longest prompt + output a request may ask for;
	// a longer one is rejected, as vLLM answers it with an error
	// (0 = no limit).
	MaxModelLen int

	// Slots is the number of sequence slots of an engine whose idle slots
	// keep their last sequence's tokens in a KV cache every step attends
	// over (llama.cpp, Ollama: the parallel setting), and Cells that
	// cache's size (slots × context per slot). When the step timer uses
	// Batch.Resident, it is the cells a step attends over (SlotCache).
	// Slots 0 = no slots; Cells 0 = TotalBlocks × BlockSize.
	Slots, Cells int

	PrefixCaching bool // reuse KV blocks of equal prompt prefixes (Request.PrefixHashes)
	// HashBlockSize is the number of tokens each Request.PrefixHashes entry
	// covers; 0 takes the input's Meta.BlockSize, or BlockSize when that is 0.
	HashBlockSize int

	NoSkip          bool      // step one iteration at a time instead of jumping over pure-decode stretches
	Decisions       io.Writer // optional JSONL scheduler decision log, one line per step or stretch
	CheckInvariants bool      // verify block conservation after every step (slow; for tests)
}

// DefaultConfig returns a continuous-batching configuration with 16-token
// blocks on one device; Step and TotalBlocks must still be set.
func DefaultConfig() Config {
	p, _ := ParsePolicy(Continuous)
	return Config{Policy: p, BlockSize: 16, Devices: 1}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	if err := c.Policy.Validate(); err != nil {
		return err
	}
	switch {
	case c.BlockSize < 1:
		return fmt.Errorf("sim: Config.BlockSize = %d: want ≥ 1", c.BlockSize)
	case c.TotalBlocks < 1:
		return fmt.Errorf("sim: Config.TotalBlocks = %d: want ≥ 1", c.TotalBlocks)
	case c.TotalBlocks > math.MaxInt32:
		return fmt.Errorf("sim: Config.TotalBlocks = %d: want ≤ %d", c.TotalBlocks, math.MaxInt32)
	case c.Step == nil:
		return fmt.Errorf("sim: Config.Step is nil: want a StepTimer (Linear or Roofline)")
	case c.Devices < 1:
		return fmt.Errorf("sim: Config.Devices = %d: want ≥ 1", c.Devices)
	case c.MaxNewTokens < 0 || c.MaxNewTokens > math.MaxInt32:
		return fmt.Errorf("sim: Config.MaxNewTokens = %d: want 0 to %d", c.MaxNewTokens, math.MaxInt32)
	case c.MaxModelLen < 0:
		return fmt.Errorf("sim: Config.MaxModelLen = %d: want ≥ 0", c.MaxModelLen)
	case c.Policy.Name == Continuous && !c.Policy.ChunkedPrefill && c.MaxModelLen > c.Policy.MaxNumBatchedTokens:
		// vLLM refuses to start so: a longer prompt could never be scheduled.
		return fmt.Errorf("sim: policy continuous: MaxNumBatchedTokens = %d: want ≥ Config.MaxModelLen (%d) without chunked prefill", c.Policy.MaxNumBatchedTokens, c.MaxModelLen)
	case c.HashBlockSize < 0 || c.HashBlockSize > traces.MaxBlockSize:
		// Past any prompt the affinity cache would hold no entry.
		return fmt.Errorf("sim: Config.HashBlockSize = %d: want 0 to %d", c.HashBlockSize, traces.MaxBlockSize)
	case c.Slots < 0 || c.Slots > math.MaxInt16:
		return fmt.Errorf("sim: Config.Slots = %d: want 0 to %d", c.Slots, math.MaxInt16)
	case c.Cells < 0:
		return fmt.Errorf("sim: Config.Cells = %d: want ≥ 0", c.Cells)
	}
	if v, ok := c.Step.(validator); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if t := c.Step.StepSeconds(Batch{DecodeSeqs: 1, DecodeContext: 1, Resident: 1}); !(t > 0) || math.IsInf(t, 0) {
		return fmt.Errorf("sim: Config.Step: a one-sequence decode step takes %v s: want a finite time > 0", t)
	}
	if c.Power != nil {
		for _, u := range []float64{0, 1} {
			if w := c.Power(u); !(w >= 0) || math.IsInf(w, 0) {
				return fmt.Errorf("sim: Config.Power(%v) = %v W: want a finite number ≥ 0", u, w)
			}
		}
	}
	return nil
}
