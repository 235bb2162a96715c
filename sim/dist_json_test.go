package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// A distribution of no values is written with null statistics, never
// zeros, and reads back as it was; one with values is written as is.
func TestDistJSONNullWhenEmpty(t *testing.T) {
	for _, c := range []struct {
		d    Dist
		want string
	}{
		{Dist{}, `{"N":0,"Mean":null,"P50":null,"P90":null,"P99":null,"Max":null}`},
		{Dist{N: 3, Mean: 0.5, P50: 0.4, P90: 0.9, P99: 1, Max: 1}, `{"N":3,"Mean":0.5,"P50":0.4,"P90":0.9,"P99":1,"Max":1}`},
	} {
		b, err := json.Marshal(c.d)
		if err != nil || string(b) != c.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", c.d, b, err, c.want)
		}
		var back Dist
		if err := json.Unmarshal(b, &back); err != nil || back != c.d {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", b, back, err, c.d)
		}
	}
	// In a summary: a run in which no request has two output tokens has
	// no TPOT.
	b, err := json.Marshal(Summary{TTFT: Dist{N: 1, Mean: 0.2, P50: 0.2, P90: 0.2, P99: 0.2, Max: 0.2}})
	if err != nil || !strings.Contains(string(b), `"TPOT":{"N":0,"Mean":null`) || !strings.Contains(string(b), `"TTFT":{"N":1,"Mean":0.2`) {
		t.Errorf("Marshal(Summary) = %s, %v", b, err)
	}
}
