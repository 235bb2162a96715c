package verify

import (
	"strings"
	"testing"
)

// The median-error maps of a verify.json hold verify's metrics only: a
// mistyped name is refused, as a bad value is, naming the map it is in.
func TestParseResultChecksErrorMaps(t *testing.T) {
	refit := func(m map[string]any, key string, errs map[string]any) {
		m["refit"] = map[string]any{key: errs}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"unknown metric", edit(t, func(m map[string]any) {
			m["median_abs_error"].(map[string]any)["tpot_mean"] = 0.1
		}), `median_abs_error: "tpot_mean": not a metric verify compares`},
		{"bad value", edit(t, func(m map[string]any) {
			m["median_abs_error"].(map[string]any)["tpot_mean_s"] = -1
		}), "median_abs_error: tpot_mean_s = -1: want a number ≥ 0"},
		{"unknown metric before refit", edit(t, func(m map[string]any) {
			refit(m, "metric_error_before", map[string]any{"ttft": 0.1})
		}), `refit.metric_error_before: "ttft": not a metric verify compares`},
		{"bad value after refit", edit(t, func(m map[string]any) {
			refit(m, "metric_error_after", map[string]any{"ttft_p50_s": "x"})
		}), `refit.metric_error_after: ttft_p50_s: not a number: want a number ≥ 0`},
		{"unknown metric at speed", edit(t, func(m map[string]any) {
			refit(m, "metric_error_at_speed", map[string]any{"e2e_p99": "inf"})
		}), `refit.metric_error_at_speed: "e2e_p99": not a metric verify compares`},
	} {
		_, err := ParseResult(c.data, "v.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := ParseResult(edit(t, func(m map[string]any) {
		m["median_abs_error"].(map[string]any)["e2e_p99_s"] = "inf"
	}), "v.json"); err != nil {
		t.Errorf("an infinite median: %v", err)
	}
}
