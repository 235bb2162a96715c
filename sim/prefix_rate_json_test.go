package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run that looked nothing up in the prefix cache (none configured, or
// no prompt reached it) has no hit rate: it is written as null, as the
// table prints "—", not as 0% hits. Old files with 0 still decode, and a
// measured rate is written as it is, with or without a window.
func TestSummaryJSONPrefixHitRateNullWithoutLookups(t *testing.T) {
	for _, s := range []Summary{{Completed: 1, Makespan: 2}, {Requests: 1, Rejected: 1}} {
		b, err := json.Marshal(s)
		if err != nil || !strings.Contains(string(b), `"PrefixHitRate":null`) || strings.Count(string(b), `"PrefixHitRate"`) != 1 {
			t.Errorf("Marshal(makespan %v, no lookups) = %s, %v; want one PrefixHitRate, null", s.Makespan, b, err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil || back.PrefixHitRate != 0 || back.Completed != s.Completed {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	for _, s := range []Summary{{Makespan: 2, PrefixLookups: 4, PrefixHits: 1, PrefixHitRate: 0.25},
		{Makespan: 2, PrefixLookups: 4}, {PrefixLookups: 4, PrefixHits: 2, PrefixHitRate: 0.5}} {
		b, err := json.Marshal(s)
		want := `"PrefixHitRate":` + jsonNumber(s.PrefixHitRate)
		if err != nil || !strings.Contains(string(b), want) || strings.Count(string(b), `"PrefixHitRate"`) != 1 {
			t.Errorf("Marshal(%d lookups) = %s, %v; want it to hold %s once", s.PrefixLookups, b, err, want)
		}
	}
	var old Summary
	if err := json.Unmarshal([]byte(`{"Makespan":2,"PrefixHitRate":0}`), &old); err != nil || old.Makespan != 2 {
		t.Errorf("Unmarshal(old file with 0) = %+v, %v", old, err)
	}
}

func jsonNumber(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
