package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A row of output_tokens 0 is sent with max_tokens 1, since servers refuse
// 0: its row keeps output_tokens 0 beside the 1 token measured, the
// summary counts and prints such rows, and the output's metadata says how
// max_tokens was set, so the difference is never silent.
func TestZeroOutputRowsAreCounted(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	in := rows(3, 0, 32, 0)
	in[1].OutputTokens = 4
	in[2].Warmup = true
	s, out := runRows(t, testConfig(srv), in)
	for _, req := range srv.Requests() {
		if req.MaxTokens < 1 {
			t.Errorf("max_tokens %d sent", req.MaxTokens)
		}
	}
	if r := out[0]; r.Error != "" || r.OutputTokens != 0 || r.UsageOutput != 1 {
		t.Errorf("row of output_tokens 0: error %q, output_tokens %d, usage %d; want 0 and 1 measured", r.Error, r.OutputTokens, r.UsageOutput)
	}
	if s.ZeroOutput != 1 {
		t.Errorf("ZeroOutput = %d, want 1 (the warm-up row is not counted)", s.ZeroOutput)
	}
	var b bytes.Buffer
	s.Print(&b)
	if !strings.Contains(b.String(), "1 row has output_tokens 0: sent with max_tokens 1") {
		t.Errorf("summary does not say it:\n%s", b.String())
	}
	if m := OutputMeta(traces.Meta{}, testConfig(srv), 1); !strings.Contains(m.Extra["replay.max_tokens"], "at least 1") {
		t.Errorf("replay.max_tokens = %q", m.Extra["replay.max_tokens"])
	}
}
