package sweep

import (
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
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

// A device is named in skip_if in any case, as the catalog and [prices]
// match it: "h100-sxm-80g" is the H100-SXM-80G a config runs on.
func TestSkipIfMatchesADeviceInAnySpelling(t *testing.T) {
	for _, cond := range []string{`device.model == " h100-sxm-80g"`, `device.model != "A100-80G"`} {
		_, s, err := writeSpec(t, `base = "base.toml"
[sweep]
"device.model" = ["H100-SXM-80G", "a100-80g"]
[prices]
"H100-SXM-80G" = 5.0
"A100-80G" = 1.5
[constraints]
skip_if = ['`+cond+`']
`+sloTOML)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range mustExpand(t, s).Configs {
			want := ""
			if c.Plan.Device.Model == "H100-SXM-80G" {
				want = SkipIf
			}
			if c.Skip != want {
				t.Errorf("%s: %s: skip %q, want %q", cond, c.Label, c.Skip, want)
			}
		}
	}
}

// A device the catalog does not know is refused in skip_if, naming the
// condition: it would never hold.
func TestSkipIfRefusesAnUnknownDevice(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"
[constraints]
skip_if = ['device.model == "H100-SMX-80G"']
`+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Expand(s, model.DefaultCatalog())
	if err == nil || !strings.Contains(err.Error(), "constraints.skip_if[0]") || !strings.Contains(err.Error(), `unknown hardware "H100-SMX-80G"`) {
		t.Errorf("err = %v, want a refusal naming skip_if[0] and the device", err)
	}
}

// A number no config can have (NaN, which compares unequal to every
// value) would silently skip every config, or none: it is refused.
func TestSkipIfRefusesNaN(t *testing.T) {
	for _, cond := range []string{`device.count != nan`, `batch.max_num_seqs < NaN`, `device.gpu_memory_utilization == NAN`} {
		t.Run(cond, func(t *testing.T) {
			path, _, err := writeSpec(t, `base = "base.toml"
[constraints]
skip_if = ['`+cond+`']
`+sloTOML)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "constraints.skip_if[0]") ||
				!strings.Contains(err.Error(), "not a number") {
				t.Fatalf("err = %v, want the file, constraints.skip_if[0] and that the value is not a number", err)
			}
		})
	}
}

// A quoted value may hold "&&": only an && outside quotes joins two
// comparisons.
func TestParseCondAndInQuotes(t *testing.T) {
	for in, want := range map[string][]any{
		`device.model == "my&&gpu"`:                    {"my&&gpu"},
		"device.model == `a&&b` && device.count >= 2":  {"a&&b", 2.0},
		`device.model != "x\"&&y" && device.count < 8`: {`x"&&y`, 8.0},
	} {
		c, err := parseCond(in)
		if err != nil {
			t.Errorf("parseCond(%s): %v", in, err)
			continue
		}
		var got []any
		for _, cmp := range c {
			got = append(got, cmp.lit)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parseCond(%s) compares with %q, want %q", in, got, want)
		}
	}
}
