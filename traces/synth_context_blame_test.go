package traces

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A session whose next prompt would pass DefaultMaxTokens ends early,
// leaving its rows to later sessions; when their first turns then run
// past the clock, the error counts the sessions the context ended and
// names the lengths that filled it.
func TestSynthSessionsPastClockNamePromptThatFilledContext(t *testing.T) {
	c := DefaultSynthConfig()
	// One session each 2e9 s: the 2 sessions 4 rows of 2 turns need fit
	// the clock, but a second turn of 6e6+1+6e6 tokens ends each after
	// one, and the 4th session opens past it (before the 3rd's second
	// turn is drawn: 2 sessions ended by then).
	c.Requests = 4
	c.Arrival = ArrivalSpec{Kind: ArrivalConstant, Rate: 5e-10}
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
	if !slices.Contains(fe.With, "Prompt") || !slices.Contains(fe.With, "Output") {
		t.Errorf("With = %v, want Prompt and Output named", fe.With)
	}
	if want := "2 sessions ended before their last turn, their next prompt past 10000000 tokens at Prompt fixed:6000000 and Output fixed:1"; !strings.Contains(fe.Msg, want) {
		t.Errorf("message %q, want %q", fe.Msg, want)
	}
}
