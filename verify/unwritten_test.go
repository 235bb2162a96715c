package verify

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// A replay that ran but failed to write its trace (its rows stay in the
// partial file) names no measured trace, even where an earlier verify left
// one under the same name: that file is not this run's.
func TestRunFailedReplayDoesNotNameAnEarlierTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	orig := replayRecord
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		// An earlier verify's trace of this candidate.
		if err := os.WriteFile(cfg.Out, []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := &replay.Summary{Run: 1, Sent: 8, Succeeded: 8, FailedByKind: map[string]int{}}
		return []*replay.Summary{s}, errors.New("replay: writing output: no space left on device")
	}
	t.Cleanup(func() { replayRecord = orig })
	opt := Options{Candidates: candidates(4), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: out, Tolerances: DefaultTolerances()}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Status != StatusReplay {
		t.Errorf("status %s (%s), want %s", c.Status, c.Detail, StatusReplay)
	}
	if c.Trace != "" {
		t.Errorf("the failed replay names the measured trace %s: want none, it wrote none", c.Trace)
	}
}
