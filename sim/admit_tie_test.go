package sim

import (
	"testing"

	"github.com/servesim/servesim/traces"
)

// A request that reached the scheduler by the instant another arrives at
// an idle engine is waiting, not still arriving, whether it got there in a
// step or stretch that just ended or as the idle engine woke for it: the
// new arrival joins it in the next step, with or without event skipping.
func TestAdmitDelayReachedByArrivalAtIdleEngine(t *testing.T) {
	p := policy(t, TokenBudget)
	p.TokenBudget, p.MaxWaitMs = 200, 0
	cases := []struct {
		name    string
		delayMs float64
		reqs    []*traces.Request
		startMs int64 // b's and c's start; their first token is 68 ms later
	}{
		// a decodes 18–128 ms, its last step from 117 ms; b arrives
		// during it and reaches the scheduler at 123 ms.
		{"arrived in the last step", 3, []*traces.Request{req("a", 0, 8, 11), req("b", 120, 42, 1), req("c", 128, 16, 2)}, 128},
		// b arrives as a's decode starts and reaches the scheduler at
		// 123 ms, in the last step of a's stretch.
		{"reached in a stretch's last step", 105, []*traces.Request{req("a", 0, 8, 11), req("b", 18, 42, 1), req("c", 128, 16, 2)}, 128},
		// a ends at 18 ms; the idle engine wakes at 20 ms as b reaches
		// its scheduler and c arrives.
		{"idle wake-up", 3, []*traces.Request{req("a", 0, 8, 1), req("b", 17, 42, 1), req("c", 20, 16, 2)}, 20},
	}
	for _, tc := range cases {
		step := Linear{C0: 10e-3, Cp: 1e-3, Cd: 1e-3, Admit: Admission{Delay: tc.delayMs / 1e3}}
		t.Run(tc.name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, noSkip bool) {
				cfg := Config{Policy: p, BlockSize: 4, TotalBlocks: 50, Step: step, Devices: 1, NoSkip: noSkip, CheckInvariants: true}
				_, w := mustRun(t, cfg, tc.reqs)
				for _, id := range []string{"b", "c"} {
					if r := w.byID[id]; r.StartTime != tc.startMs*1e6 || r.FirstToken != (tc.startMs+68)*1e6 {
						t.Errorf("%s: start %d first token %d ns, want %d and %d ms", id, r.StartTime, r.FirstToken, tc.startMs, tc.startMs+68)
					}
				}
			})
		})
	}
}
