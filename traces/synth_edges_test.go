package traces

import (
	"errors"
	"testing"
)

// A lognormal minimum above the token bound cannot be kept: with no max the
// draws are clamped to the bound, below the minimum asked for. It is
// refused, as a max above the bound is.
func TestSynthLognormalMinAboveBoundRefused(t *testing.T) {
	if l, err := ParseLengthSpec("lognormal:100:1:20000000:0"); err == nil {
		t.Errorf("ParseLengthSpec accepted %v", l)
	}
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Prompt = LengthSpec{Kind: LengthLognormal, Mean: 100, CV: 1, Min: 20_000_000}
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "Prompt" {
		_, rows := synthAll(t, c)
		t.Errorf("Validate = %v, want a FieldError for Prompt; prompts drawn %d, below min %d", err, rows[0].PromptTokens, c.Prompt.Min)
	}
}

// Gamma arrivals with a CV so small that 1/CV² overflows are the limit of
// the process, evenly spaced, not a NaN gap turned into an error.
func TestSynthGammaTinyCV(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 3
	c.Arrival = ArrivalSpec{Kind: ArrivalGamma, Rate: 2, CV: 1e-160}
	r, err := Synthesize(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for r.Next() {
		got = append(got, r.At().Arrival)
	}
	if err := r.Err(); err != nil || len(got) != 3 || got[1] != 5e8 || got[2] != 1e9 {
		t.Errorf("arrivals %v, err %v; want [0 500000000 1000000000]", got, err)
	}
}
