package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// A replay that failed to write its rows and was then interrupted is
// reported with its own error, which names the partial file holding the
// rows written: reported as merely canceled, the write error and the file
// would go unmentioned.
func TestRunWriteErrorThenInterruptKeepsReplayError(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	orig := replayRecord
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		cancel() // interrupted after the write error
		s := &replay.Summary{Run: 1, Sent: 8, Succeeded: 8, FailedByKind: map[string]int{}, RowsKeptIn: replay.PartialPath(cfg.Out)}
		return []*replay.Summary{s}, fmt.Errorf("replay: writing output: no space left on device (the rows written so far stay in %s)", s.RowsKeptIn)
	}
	t.Cleanup(func() { replayRecord = orig })
	opt := Options{Candidates: candidates(4), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: out, Tolerances: DefaultTolerances()}
	res, err := Run(ctx, opt)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("result %v, error %v: want the result and context.Canceled", res != nil, err)
	}
	c := res.Candidates[0]
	if c.Status != StatusReplay || !strings.Contains(c.Detail, "no space left on device") || !strings.Contains(c.Detail, ".partial.arrows") {
		t.Errorf("status %s (%s): want %s with the write error and the partial file", c.Status, c.Detail, StatusReplay)
	}
}
