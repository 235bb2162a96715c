package main

import (
	"strings"
	"testing"
)

// A rate scale verify cannot replay at (missing, ≤ 0, or so small that
// its time scale is infinite) is refused with the file, before any
// candidate runs, naming the candidate as its other fields are named.
func TestParseCandidatesChecksRateScale(t *testing.T) {
	const name = "out/candidates.json"
	for _, rs := range []string{`, "rate_scale": 0`, `, "rate_scale": -2`, `, "rate_scale": 1e-320`, ``} {
		data := `{"candidates": [{"rank": 1, "label": "a", "rate_scale": 1}, {"rank": 2, "label": "b"` + rs + `}]}`
		_, err := parseCandidates([]byte(data), name)
		if err == nil || !strings.Contains(err.Error(), name+": candidates[1].rate_scale = ") {
			t.Errorf("b{%s}: err = %v, want candidates[1].rate_scale refused", rs, err)
		}
	}
	if _, err := parseCandidates([]byte(`{"candidates": [{"rank": 1, "label": "a", "rate_scale": 0.5}]}`), name); err != nil {
		t.Errorf("rate_scale 0.5: %v", err)
	}
}
