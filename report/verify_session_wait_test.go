package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

// A verification that held sessions' turns says so, with the turnaround,
// beside its figures: they are of the session-waiting workload.
func TestVerificationSaysSessionWait(t *testing.T) {
	res := &verify.Result{Requests: 10, Slice: "10", SessionWait: "250ms",
		Candidates: []verify.CandidateResult{{Rank: 1, Label: "a", Repeat: verify.Repeat{Status: verify.StatusHealth}}}}
	text := verificationText(t, res)
	if !strings.Contains(text, "held each session's next turn until its previous one ended (250ms turnaround)") {
		t.Errorf("no session wait said:\n%s", text)
	}
	res.SessionWait = ""
	if text := verificationText(t, res); strings.Contains(text, "session") {
		t.Errorf("a verification that held no turn speaks of session wait:\n%s", text)
	}
}

// A candidate's measured and simulated CDFs side by side, one of which
// held sessions' turns and the other not, are of different workloads:
// the caption warns.
func TestVerificationCDFWarnsOfUnequalSessionWait(t *testing.T) {
	dir := t.TempDir()
	held := sessionTrace(t, filepath.Join(dir, "live.parquet"), "live", map[string]string{"replay.session_wait": "true"})
	sent := sessionTrace(t, filepath.Join(dir, "live0.parquet"), "live", map[string]string{"replay.session_wait": "false"})
	simHeld := sessionTrace(t, filepath.Join(dir, "sim.parquet"), "simulated", map[string]string{"session_wait": "0s"})
	simSent := sessionTrace(t, filepath.Join(dir, "sim0.parquet"), "simulated", nil)
	const warn = "warning: only the"
	for _, tc := range []struct {
		live, sim, want string
	}{
		{held, simSent, "warning: only the measured run held each session's next turn"},
		{sent, simHeld, "warning: only the simulated run held each session's next turn"},
		{held, simHeld, ""},
		{sent, simSent, ""},
	} {
		res := &verify.Result{Candidates: []verify.CandidateResult{{Rank: 1, Label: "a",
			Repeat: verify.Repeat{Status: verify.StatusOK, Trace: tc.live}, SimTrace: tc.sim}}}
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range blocks {
			f, isFig := b.(*Figure)
			if !isFig || !strings.HasPrefix(f.Name, "verify-rank01-") {
				continue
			}
			n++
			if tc.want != "" && !strings.Contains(f.Caption, tc.want) {
				t.Errorf("%s against %s: caption %q: want %q", filepath.Base(tc.live), filepath.Base(tc.sim), f.Caption, tc.want)
			}
			if tc.want == "" && strings.Contains(f.Caption, warn) {
				t.Errorf("%s against %s: caption %q warns of turns held alike", filepath.Base(tc.live), filepath.Base(tc.sim), f.Caption)
			}
		}
		if n == 0 {
			t.Errorf("%s against %s: no CDF figure", filepath.Base(tc.live), filepath.Base(tc.sim))
		}
	}
}

func verificationText(t *testing.T, res *verify.Result) string {
	t.Helper()
	blocks, err := VerificationSection{Result: res}.Blocks(nil)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, b := range blocks {
		if tx, isText := b.(*Text); isText {
			sb.WriteString(tx.Text + "\n")
		}
	}
	return sb.String()
}

func sessionTrace(t *testing.T, path, source string, extra map[string]string) string {
	t.Helper()
	r := &traces.Request{}
	r.Reset()
	r.ID, r.PromptTokens, r.OutputTokens, r.HTTPStatus = "0", 10, 5, 200
	r.FirstToken, r.LastToken, r.UsageOutput = 1e8, 2e8, 5
	if err := traces.WriteAll(path, traces.Meta{Source: source, Extra: extra}, []*traces.Request{r}); err != nil {
		t.Fatal(err)
	}
	return path
}
