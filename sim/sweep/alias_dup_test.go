package sweep

import (
	"strings"
	"testing"
)

// Two spellings of one precision or one device are one value: both would
// run the same config twice, against the promise of no duplicate configs.
func TestParseSpecRefusesTwoSpellingsOfOneValue(t *testing.T) {
	for _, c := range []struct{ body, key string }{
		{`"model.precision" = ["fp8", "float8"]`, "sweep.model.precision"},
		{`"model.precision" = ["bf16", "BF16"]`, "sweep.model.precision"},
		{`"device.model" = ["H100-SXM-80G", "h100-sxm-80g"]`, "sweep.device.model"},
	} {
		_, _, err := writeSpec(t, "base = \"base.toml\"\n[sweep]\n"+c.body+"\n"+sloTOML)
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: err = %v, want %s refused as given twice", c.body, err, c.key)
		}
	}
}
