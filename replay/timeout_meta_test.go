package replay

import (
	"testing"
	"time"

	"github.com/servesim/servesim/traces"
)

// The per-request timeout decides which slow requests fail, and cuts the
// latency tail there: a recording must say what it was, as it says every
// other setting of the run.
func TestOutputMetaRecordsTheRequestTimeout(t *testing.T) {
	cfg := testConfig(nil)
	cfg.Timeout = 90 * time.Second
	m := OutputMeta(traces.Meta{}, cfg, 1)
	if got := m.Extra["replay.timeout"]; got != "1m30s" {
		t.Errorf(`Extra["replay.timeout"] = %q, want "1m30s"`, got)
	}
}
