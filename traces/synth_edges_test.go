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
