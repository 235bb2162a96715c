package traces

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A trace whose arrivals would run past the clock is refused naming the
// rate (or curve) first, the usual cause, and the fields that set the row
// count with it: in the matrix, the lengths and their repeats, whether
// or not Repeats was changed from its default.
func TestSynthSpanErrorNamesRateThenCount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mod   func(*SynthConfig)
		field string
		with  []string
	}{
		{"requests", func(c *SynthConfig) { c.Requests, c.Arrival.Rate = 3, 1e-10 }, "Arrival.Rate", []string{"Requests"}},
		{"matrix", func(c *SynthConfig) { c.PromptLengths, c.Arrival.Rate = []int32{1, 2, 3}, 1e-10 }, "Arrival.Rate", []string{"PromptLengths", "Repeats"}},
		{"sessions", func(c *SynthConfig) {
			c.Requests, c.Arrival.Rate = 6, 1e-10
			c.Turns, c.ThinkTime = LengthSpec{Kind: LengthFixed, Value: 2}, 1
		}, "Arrival.Rate", []string{"Requests", "Turns"}},
		{"curve", func(c *SynthConfig) {
			c.Requests, c.Arrival.Rate, c.Arrival.Curve = 3, 0, []RatePoint{{0, 1e-10}}
		}, "Arrival.Curve", []string{"Requests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultSynthConfig()
			tc.mod(&c)
			var fe *FieldError
			if err := c.Validate(); !errors.As(err, &fe) || fe.Field != tc.field || !slices.Equal(fe.With, tc.with) {
				t.Fatalf("Validate = %v (%+v), want a FieldError for %s with %v", err, fe, tc.field, tc.with)
			}
			for _, w := range tc.with {
				if !strings.Contains(fe.Msg, w) {
					t.Errorf("message %q does not name %s", fe.Msg, w)
				}
			}
			if !strings.Contains(fe.Msg, "2^32 s") {
				t.Errorf("message %q does not give the clock's bound", fe.Msg)
			}
		})
	}
}
