package traces

import (
	"strings"
	"testing"
)

// The clock-range check counts the sessions that open, not the rows: 20
// rows in sessions of 10 turns open 2 sessions, whose starts fit the
// clock at a rate where 20 lone arrivals would not.
func TestSynthSessionsSpanCountsSessions(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 20
	c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: 4 / float64(maxSeconds)}
	c.Turns, c.ThinkTime = LengthSpec{Kind: LengthFixed, Value: 10}, 1
	_, rows := synthAll(t, c)
	if len(rows) != 20 {
		t.Fatalf("rows = %d, want 20", len(rows))
	}
	// Sessions of at most 2 turns need 10 starts, which run past the clock.
	c.Turns = LengthSpec{Kind: LengthUniform, Min: 1, Max: 2}
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "SynthConfig.Arrival.Rate:") || !strings.Contains(err.Error(), "10 or more sessions") {
		t.Errorf("err = %v, want the rate refused for the 10 sessions it opens", err)
	}
}
