package traces

import (
	"errors"
	"testing"
)

// A prefix shorter than one hash block fills no block wholly, so no
// hash is shared and the groups change nothing: it is refused naming
// PrefixTokens, not written as a trace without reuse.
func TestSynthPrefixShorterThanBlockRefused(t *testing.T) {
	c := DefaultSynthConfig()
	c.Requests = 100
	c.PrefixGroups, c.PrefixTokens, c.BlockSize = 2, 100, 512
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "PrefixTokens" {
		_, rows := synthAll(t, c)
		s, _ := ComputeStats(&sliceReader{rows: rows}, SLO{})
		t.Errorf("Validate = %v, want a FieldError for PrefixTokens; made a trace with prefix reuse %v", err, *s.PrefixReuseRatio)
	}
	c.PrefixTokens = 512 // one whole block: shared
	if err := c.Validate(); err != nil {
		t.Errorf("a one-block prefix: %v", err)
	}
}
