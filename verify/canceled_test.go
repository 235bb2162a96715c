package verify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// When verify is interrupted, the candidate in flight is reported as
// canceled and so is every candidate after it, which never ran: the
// result lists every candidate asked for, each with its status, and
// counts them all as not measured.
func TestRunInterruptedReportsEveryCandidate(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	orig := replayRecord
	calls := 0
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		calls++
		cancel() // interrupted as the first replay starts
		return orig(ctx, cfg, log)
	}
	t.Cleanup(func() { replayRecord = orig })
	out := filepath.Join(dir, "out")
	res, err := Run(ctx, Options{Candidates: candidates(1, 4, 6), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Out: out, Tolerances: DefaultTolerances()})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("result %v, error %v: want the result and context.Canceled", res != nil, err)
	}
	if calls != 1 {
		t.Errorf("%d replays, want 1", calls)
	}
	if len(res.Candidates) != 3 {
		t.Fatalf("%d candidates in the result, want all 3", len(res.Candidates))
	}
	for i, c := range res.Candidates {
		if c.Status != StatusCanceled || c.Rank != int64(i+1) || c.Label != interruptedLabel(i) {
			t.Errorf("candidate %d: #%d %s status %s (%s): want #%d %s canceled", i, c.Rank, c.Label, c.Status, c.Detail, i+1, interruptedLabel(i))
		}
		if i > 0 && (!strings.Contains(c.Detail, "not run") || c.Trace != "" || c.SimTrace != "") {
			t.Errorf("candidate %d: detail %q, trace %q, sim trace %q: want not run, no traces", i, c.Detail, c.Trace, c.SimTrace)
		}
	}
	if res.Incomplete != 3 {
		t.Errorf("incomplete %d, want 3", res.Incomplete)
	}
	data, err := json.Marshal(res.RelativeTo(out))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseResult(data, "verify.json"); err != nil {
		t.Errorf("verify.json does not read back: %v", err)
	}
}

func interruptedLabel(i int) string { return []string{"seqs=1", "seqs=4", "seqs=6"}[i] }
