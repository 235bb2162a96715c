package verify

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/replay"
	"github.com/servesim/servesim/traces"
)

// warmupTokens is the long warm-up request's prompt (calibrate.WarmupRun)
// for a candidate: the slice's longest request, prompt and output, at
// every sequence the candidate runs at once, but no more than the whole
// slice holds and within its max_model_len, so that the engine has run
// the largest attention shape the replay asks of it before anything is
// measured. One token is left for the output; at least one is asked
// for even when the slice holds none.
func warmupTokens(k Knobs, s sliceTokens) int {
	w := min(max(k.MaxNumSeqs, k.BatchSize, 1)*s.longest, s.total)
	if k.MaxModelLen > 0 {
		w = min(w, k.MaxModelLen)
	}
	return max(w-1, 1)
}

// warmUp sends calibrate.WarmupRun(long) with prompts of their own salt
// (nothing in them opens like a measured prompt). A request the engine
// refuses, longer than it takes, is only logged; an error is a failure of
// the run as a whole.
func warmUp(ctx context.Context, cfg replay.Config, long int, log io.Writer) error {
	cfg = probeConfig(cfg)
	cfg.SaveRaw = ""
	rows, _, err := calibrate.WarmupRun(long).Send(ctx, cfg, rand.Uint64()|1)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if !r.Succeeded() {
			fmt.Fprintf(log, "verify: warm-up request of %d prompt tokens failed (not measured): %s\n", r.PromptTokens, r.Error)
		}
	}
	return nil
}

// probeConfig is cfg for the requests sent before the measured replay
// (text-model probes, warm-up): they run as a closed loop, which holds
// no sessions' turns (SessionWait is the open loop's).
func probeConfig(cfg replay.Config) replay.Config {
	cfg.SessionWait = false
	return cfg
}

// sliceTokens is what the slice's requests hold, prompt and output.
type sliceTokens struct {
	requests int // measured: warm-up rows left out, as in each candidate's count
	longest  int // one request's most, warm-up rows included
	total    int // all of them together
}

// sizing is a traces.Reader that adds up the sliceTokens of what is read
// through it; a read that ends without a measured request fails with
// empty, so that nothing is written.
type sizing struct {
	traces.Reader
	sliceTokens
	empty error
	err   error
}

func (z *sizing) Next() bool {
	if !z.Reader.Next() {
		if z.requests == 0 && z.Reader.Err() == nil {
			z.err = z.empty
		}
		return false
	}
	r := z.At()
	n := int(r.PromptTokens) + int(r.OutputTokens)
	z.longest, z.total = max(z.longest, n), z.total+n
	if !r.Warmup {
		z.requests++
	}
	return true
}

func (z *sizing) Err() error {
	if z.err != nil {
		return z.err
	}
	return z.Reader.Err()
}
