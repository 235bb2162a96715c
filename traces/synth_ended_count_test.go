package traces

import (
	"errors"
	"strings"
	"testing"
)

// One session cut short is counted in the singular: "1 session ended",
// not "1 sessions ended".
func TestSynthSessionsPastClockCountOneEndedSession(t *testing.T) {
	c := DefaultSynthConfig()
	// One session each 3e9 s: the 2 sessions 3 rows of 2 turns need fit
	// the clock, but a second turn of 6e6+1+6e6 tokens ends the first
	// after one turn, and the 3rd session opens past the clock.
	c.Requests = 3
	c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: 1.0 / 3e9}
	c.Turns, c.ThinkTime = LengthSpec{Kind: LengthFixed, Value: 2}, 1
	c.Prompt = LengthSpec{Kind: LengthFixed, Value: 6_000_000}
	c.Output = LengthSpec{Kind: LengthFixed, Value: 1}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	var fe *FieldError
	if err := r.Err(); !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a FieldError past the clock", err)
	}
	if want := "; 1 session ended before its last turn, its next prompt past"; !strings.Contains(fe.Msg, want) {
		t.Errorf("message %q, want %q", fe.Msg, want)
	}
}
