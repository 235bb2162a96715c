package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// A parent's calibration trace whose kv_reported does not parse stops a
// refit, naming the trace and the key: read as absent, the KV capacity
// the engine reported would silently stop telling a paged engine from
// one of slots.
func TestRefitRefusesAMalformedReportedKVInAParentTrace(t *testing.T) {
	dir := t.TempDir()
	src := writeTrace(t, dir, 4, 10*time.Millisecond)
	_, rows, err := traces.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	meta := traces.Meta{Source: "test"}
	meta.Set("calibrate_run", "decode-c4-p64")
	meta.Set("calibrate_kind", calibrate.KindMixed)
	meta.Set(calibrate.ReportedKVKey, `{"source":"vllm:cache_config_info","tokens":-5}`)
	cal := filepath.Join(dir, "decode.parquet")
	if err := traces.WriteAll(cal, meta, rows); err != nil {
		t.Fatal(err)
	}
	ref, err := calibrate.NewTraceRef(cal)
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(dir, "parent.json")
	prof := parentProfile(t, parent)
	ref.Path = "decode.parquet"
	prof.Traces = []calibrate.TraceRef{ref}
	if err := prof.Save(parent); err != nil {
		t.Fatal(err)
	}
	opt := Options{Profile: prof, ProfilePath: parent}
	_, err = Refit(context.Background(), &Result{}, opt, RefitOptions{Out: filepath.Join(dir, "refit.json")})
	if err == nil || !strings.Contains(err.Error(), cal) || !strings.Contains(err.Error(), calibrate.ReportedKVKey) || !strings.Contains(err.Error(), "tokens = -5") {
		t.Errorf("refit with a malformed %s in %s: error %v, want one naming the file, the key and the field", calibrate.ReportedKVKey, cal, err)
	}
}
