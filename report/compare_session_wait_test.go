package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A replay with session wait holds a session's next turn until its
// previous one ends, so its sends follow the engine, not the input's
// schedule: it shares no schedule with a replay without, its throughput
// gets an interval, and a warning names the difference. A recording
// from before the setting held no turn: it is one without.
func TestCompareSameScheduleNeedsEqualSessionWait(t *testing.T) {
	wait := func(v string) map[string]string { return map[string]string{"replay.session_wait": v} }
	a := scheduleRunWith(t, "a", 200, 10, 1, traces.SLO{}, wait("false"))
	b := scheduleRunWith(t, "b", 200, 10, 0.85, traces.SLO{}, wait("true"))
	cs, out := throughputChanges(t, a, b, 0.10)
	for _, c := range cs {
		if c.noInterval != "" || !known(c.Lo) || !known(c.Hi) {
			t.Errorf("%s: no interval (%q) between a run that held session turns and one that did not\n%s", c.Metric, c.noInterval, out)
		}
	}
	const want = "warning: A and B ran with session wait only in B"
	if !strings.Contains(out, want) {
		t.Errorf("want %q, got:\n%s", want, out)
	}
	// held alike on both sides, or a recording that predates the setting
	// against one without it, is the same schedule still
	for _, c := range []struct{ a, b map[string]string }{{wait("true"), wait("true")}, {nil, wait("false")}} {
		a = scheduleRunWith(t, "a", 200, 10, 1, traces.SLO{}, c.a)
		b = scheduleRunWith(t, "b", 200, 10, 0.85, traces.SLO{}, c.b)
		_, out := throughputChanges(t, a, b, 0.10)
		if !strings.Contains(out, "same schedule: no interval") || strings.Contains(out, "session wait") {
			t.Errorf("A %v, B %v: not taken as one schedule, or warned of:\n%s", c.a, c.b, out)
		}
	}
}
