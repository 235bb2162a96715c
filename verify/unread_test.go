package verify

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay"
)

// A candidate whose measured trace cannot be read back keeps its metrics
// (they come from the run), but its texts are missing from the output
// comparison: verify says so in the log and in the result, rather than
// comparing the others as if it had not run.
func TestRunUnreadableTraceIsNamedInConsistency(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	orig := replayRecord
	replayRecord = func(ctx context.Context, cfg replay.Config, log io.Writer) ([]*replay.Summary, error) {
		sums, err := orig(ctx, cfg, log)
		if calls++; calls == 2 {
			if werr := os.WriteFile(cfg.Out, []byte("not a trace"), 0o644); werr != nil {
				t.Fatal(werr)
			}
		}
		return sums, err
	}
	t.Cleanup(func() { replayRecord = orig })
	var log bytes.Buffer
	opt := Options{Candidates: candidates(1, 4, 6), Trace: writeTrace(t, dir, 8, 10*time.Millisecond), Replay: stubReplay(t),
		Out: filepath.Join(dir, "out"), Tolerances: DefaultTolerances(), Log: &log}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Status != StatusOK || c.Measured.Completed != 8 {
			t.Errorf("%s: status %s (%s), %d completed: want ok, 8", c.Label, c.Status, c.Detail, c.Measured.Completed)
		}
	}
	bad := res.Candidates[1].Label
	cs := res.Consistency
	if len(cs.Unread) != 1 || !strings.HasPrefix(cs.Unread[0], bad+": ") || !strings.Contains(cs.Unread[0], res.Candidates[1].Trace) {
		t.Fatalf("unread %q: want %s named with its trace and why", cs.Unread, bad)
	}
	if cs.Compared != 8 || len(cs.PerCandidate) != 1 || cs.PerCandidate[0].Label == bad {
		t.Errorf("consistency %+v: want the two readable candidates compared on 8 requests", cs)
	}
	if !strings.Contains(log.String(), "output consistency leaves out "+bad) {
		t.Errorf("log does not name %s as left out:\n%s", bad, log.String())
	}
	var table bytes.Buffer
	res.WriteTable(&table)
	if !strings.Contains(table.String(), "output consistency leaves out "+cs.Unread[0]) {
		t.Errorf("table does not name %s as left out:\n%s", bad, table.String())
	}
}
