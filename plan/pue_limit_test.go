package plan

import (
	"context"
	"encoding/json"
	"github.com/servesim/servesim/model"
	"strings"
	"testing"
)

// A PUE no facility has is refused at its key, as an absurd price is: at
// 1e308 a run's energy cost overflowed to +Inf, which the result's JSON
// cannot hold.
func TestParseRefusesAnAbsurdPUE(t *testing.T) {
	text := strings.NewReplacer("pue = 1.2", "pue = 1e308", "usd_per_kwh = 0.10", "usd_per_kwh = 1000000").Replace(valid)
	p, err := Parse([]byte(text))
	if err == nil {
		r, rerr := p.Resolve(model.DefaultCatalog())
		if rerr != nil {
			t.Fatal(rerr)
		}
		res, serr := r.Simulate(context.Background(), "test", head(t, 20, 1), nil, Options{})
		if serr != nil {
			t.Fatal(serr)
		}
		_, jerr := json.Marshal(res)
		t.Fatalf("pue = 1e308 accepted: energy %g USD, JSON: %v", res.Cost.EnergyUSD, jerr)
	}
	if want := "cost.pue: must be a finite number in [1, 100]"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to mention %q", err, want)
	}
	if _, err := Parse([]byte(strings.Replace(valid, "pue = 1.2", "pue = 100", 1))); err != nil {
		t.Errorf("pue = 100: %v", err)
	}
}
