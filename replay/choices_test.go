package replay

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A request asks for one choice: a chunk for another choice, or one
// holding several, would add another answer's tokens and text to this
// one's. The request fails as bad_stream naming the chunk and the choice,
// on both the fast path and go-json's (KeepText), on both endpoints.
func TestOtherChoicesFail(t *testing.T) {
	cases := []struct {
		fault replaytest.Fault
		want  string
	}{
		{replaytest.OtherChoice, "chunk 4 has a choice of index 1"},
		{replaytest.TwoChoices, "chunk 4 has 2 choices"},
	}
	for _, tc := range cases {
		srv := replaytest.New(replaytest.Options{Fault: always(tc.fault)})
		for _, ep := range []Endpoint{Chat, Completions} {
			for _, keep := range []bool{false, true} {
				cfg := testConfig(srv)
				cfg.Endpoint, cfg.KeepText = ep, keep
				want := tc.want
				if ep == Completions {
					want = strings.Replace(want, "chunk 4", "chunk 3", 1) // no role chunk
				}
				_, out := runRows(t, cfg, rows(1, 0, 40, 5))
				r := out[0]
				if ErrorKind(r.Error) != KindBadStream || !strings.Contains(r.Error, want) {
					t.Errorf("fault %d, endpoint %v, keep text %v: error %q, want %s naming %q", tc.fault, ep, keep, r.Error, KindBadStream, want)
				}
				if r.Chunks != traces.Missing || r.OutputText != "" {
					t.Errorf("fault %d: failed row kept %d chunks, text %q", tc.fault, r.Chunks, r.OutputText)
				}
			}
		}
		srv.Close()
	}
}
