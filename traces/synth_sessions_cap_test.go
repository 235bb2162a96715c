package traces

import (
	"errors"
	"strings"
	"testing"
)

// MaxArrivalRate bounds the rows' rate, not only the sessions': sessions
// of several turns at a rate near the cap, or turns a sub-µs think time
// apart, would put rows closer than the clock resolves.
func TestSynthSessionsRowRateCapped(t *testing.T) {
	for name, tc := range map[string]struct {
		mut   func(*SynthConfig)
		field string
		msg   string
	}{
		"rows past the cap": {func(c *SynthConfig) { c.Arrival.Rate = 5e5 }, "Arrival.Rate", "2e+06 requests/s"},
		"sub-µs think time": {func(c *SynthConfig) { c.ThinkTime = 1e-9 }, "ThinkTime", "at least 1e-06 s"},
		"uniform mean turns": {func(c *SynthConfig) {
			c.Arrival.Rate, c.Turns = 3e5, LengthSpec{Kind: LengthUniform, Min: 2, Max: 6}
		}, "Arrival.Rate", "1.2e+06 requests/s"},
	} {
		c := sessionConfig()
		tc.mut(&c)
		err := c.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: Validate() = %v, want a %s error saying %q", name, err, tc.field, tc.msg)
		}
	}
	c := sessionConfig()
	c.Arrival.Rate, c.ThinkTime = 2.5e5, 1e-6 // 4 turns: 1e6 rows/s, the cap itself
	if err := c.Validate(); err != nil {
		t.Errorf("at the cap: %v", err)
	}
}
