package verify

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// A replay that finished before an interrupt measured its candidate: it
// is reported with its figures and its trace, not as canceled; only the
// candidates after it are not run.
func TestReplayFinishedBeforeInterruptIsMeasured(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	orig := replayRecord
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		sums, err := orig(ctx, cfg, log)
		cancel() // interrupted once the replay returned
		return sums, err
	}
	t.Cleanup(func() { replayRecord = orig })
	res, err := Run(ctx, Options{Candidates: candidates(1, 4), Trace: writeTrace(t, dir, 4, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances()})
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Candidates) != 2 {
		t.Fatalf("result %v, error %v: want both candidates and context.Canceled", res != nil, err)
	}
	first := res.Candidates[0]
	if first.Status != StatusOK || first.Trace == "" || first.Measured.Completed != 4 {
		t.Errorf("first candidate: status %s (%s), trace %q, %d completed: want measured, its trace and 4 requests",
			first.Status, first.Detail, first.Trace, first.Measured.Completed)
	}
	if second := res.Candidates[1]; second.Status != StatusCanceled || !strings.Contains(second.Detail, "not run") {
		t.Errorf("second candidate: status %s (%s): want canceled, not run", second.Status, second.Detail)
	}
}
