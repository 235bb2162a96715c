package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A row the source trace marks failed is not sent, as the simulator
// rejects it: it is written unmeasured with the simulator's error and
// counted apart from the sent rows, in open and closed loop alike.
func TestSourceFailedRowsAreNotSent(t *testing.T) {
	for _, arrival := range []Arrival{Open, Closed} {
		t.Run(string(arrival), func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.Arrival, cfg.Concurrency = arrival, 2
			in := rows(4, time.Millisecond, 30, 2)
			in[1].SourceFailed = true
			in[2].SourceFailed, in[2].PromptTokens, in[2].OutputTokens = true, 0, 0 // refused by a recording proxy
			s, out := runRows(t, cfg, in)
			if n := srv.Count(); n != 2 {
				t.Errorf("server got %d requests; want 2 (the source-failed rows not sent)", n)
			}
			if s.Sent != 2 || s.Succeeded != 2 || s.Failed != 0 || s.SourceFailed != 2 || s.NotSent != 0 {
				t.Errorf("sent %d, succeeded %d, failed %d, source failed %d, not sent %d; want 2, 2, 0, 2, 0",
					s.Sent, s.Succeeded, s.Failed, s.SourceFailed, s.NotSent)
			}
			var b strings.Builder
			s.Print(&b)
			if !strings.Contains(b.String(), "2 not sent (failed in the source trace") {
				t.Errorf("summary does not count the source-failed rows:\n%s", b.String())
			}
			for _, r := range out[1:3] {
				if r.Error != "rejected: "+traces.SourceFailedReason {
					t.Errorf("%s: error %q; want %q", r.ID, r.Error, "rejected: "+traces.SourceFailedReason)
				}
				if r.ActualSend != traces.Missing || r.HTTPStatus != traces.Missing || r.FirstToken != traces.Missing {
					t.Errorf("%s: sent %d, status %d, first token %d; want all missing", r.ID, r.ActualSend, r.HTTPStatus, r.FirstToken)
				}
			}
		})
	}
}
