package sweep

import (
	"strings"
	"testing"
)

// A skip_if value that no config can have (a misspelt strategy, router
// or precision) would silently skip nothing: it is refused, naming the
// condition.
func TestSkipIfRefusesAValueNoConfigCanHave(t *testing.T) {
	for _, tc := range []struct{ cond, want string }{
		{`batch.strategy == "Fixed"`, `unknown strategy "Fixed"`},
		{`batch.strategy != "contiuous"`, `unknown strategy "contiuous"`},
		{`cluster.router == "roundrobin"`, `unknown router "roundrobin"`},
		{`model.precision == "fp9"`, `unknown precision "fp9"`},
	} {
		t.Run(tc.cond, func(t *testing.T) {
			path, _, err := writeSpec(t, `base = "base.toml"
[constraints]
skip_if = ['`+tc.cond+`']
`+sloTOML)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "constraints.skip_if[0]") ||
				!strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want the file, constraints.skip_if[0] and %q", err, tc.want)
			}
		})
	}
}

// A precision in skip_if matches however the sweep spells it, as the plan
// reads it ("float8" is fp8).
func TestSkipIfComparesPrecisionsAsThePlanReadsThem(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"model.precision" = ["bf16", "fp8"]
[constraints]
skip_if = ['model.precision == "float8"']
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExpand(t, s)
	for _, c := range ex.Configs {
		want := ""
		if c.Plan.Model.Precision == "fp8" {
			want = SkipIf
		}
		if c.Skip != want {
			t.Errorf("%s: skip %q, want %q", c.Label, c.Skip, want)
		}
	}
}
