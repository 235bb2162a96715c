package traces

import (
	"strings"
	"testing"
)

// A bad --turns value is a turn count, not a token count: the error says
// which, so that it reads right beside the flag.
func TestParseTurnsSpecNamesTurns(t *testing.T) {
	for in, want := range map[string]string{
		"fixed:-1":     `turns spec "fixed:-1": "-1" is not a turn count: want digits (no sign), in [0, 10000000]`,
		"uniform:1:+4": `turns spec "uniform:1:+4": "+4" is not a turn count`,
		"5000000000":   `turns spec "5000000000": "5000000000" is out of range: want a turn count in [0, 10000000]`,
	} {
		_, err := ParseTurnsSpec(in)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseTurnsSpec(%q) = %v, want an error starting %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "token") {
			t.Errorf("ParseTurnsSpec(%q) = %v: speaks of tokens", in, err)
		}
	}
	if l, err := ParseTurnsSpec("uniform:2:6"); err != nil || l != (LengthSpec{Kind: LengthUniform, Min: 2, Max: 6}) {
		t.Errorf("ParseTurnsSpec(uniform:2:6) = %v, %v", l, err)
	}
}
