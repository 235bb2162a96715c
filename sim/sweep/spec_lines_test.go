package sweep

import (
	"strings"
	"testing"
)

// A refused value of [slo], [search], [constraints] or [prices] is named
// at the spec's line that sets it, as a plan's value is.
func TestParseSpecNamesTheLineOfABadValue(t *testing.T) {
	head := `base = "base.toml"` + "\n[sweep]\n\"device.count\" = [1, 2]\n" // lines 1–3
	for _, c := range []struct{ body, want string }{
		{"[slo]\nttft_p99_ms = -1\n", "line 6: slo.ttft_p99_ms"},
		{"[slo]\ngoodput_min = 2\n", "line 6: slo.goodput_min"},
		{sloTOML + "[search]\nmax_probes = 1\n", "line 10: search.max_probes"},
		{sloTOML + "[search]\nmin_scale = 8\nmax_scale = 2\n", "line 10: search.min_scale"},
		{sloTOML + "[constraints]\nmax_devices = -1\n", "line 10: constraints.max_devices"},
		{sloTOML + "[constraints]\nskip_if = [\"nonsense\"]\n", "line 10: constraints.skip_if[0]"},
		{sloTOML + "[prices]\n\"H100-SXM-80G\" = -2\n", "line 10: prices.\"H100-SXM-80G\""},
		{sloTOML + "[prices]\n\"H100-SXM-80G\" = 2\n\"A100-40G\" = 1\n", "line 11: prices.\"A100-40G\": no config runs on it"},
		{sloTOML + "[prices]\n\"H100-SXM-80G\" = 1e308\n", "line 10: prices.\"H100-SXM-80G\": must be a price ≤ 1000000"},
	} {
		_, _, err := writeSpec(t, head+"\n"+c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spec\n%s\nerr = %v, want %q", c.body, err, c.want)
		}
	}
}
