package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/model"
)

// A range whose number of steps does not fit an int is refused as too
// long; it used to yield no values and Expand then indexed an empty axis.
func TestRangeTooLongForIntIsRefused(t *testing.T) {
	for _, r := range []string{
		`"batch.max_num_seqs" = {from = 1, to = 9223372036854775807, step = 1}`,
		`"rate_scale" = {from = 1e-300, to = 1e300, step = 1e-300}`,
	} {
		_, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n"+r+"\n"+sloTOML)
		if err == nil || !strings.Contains(err.Error(), "more than 10000 values") {
			n := -1
			if s != nil && len(s.Axes) > 0 {
				n = len(s.Axes[0].Values)
			}
			t.Errorf("%s: err = %v (%d values), want more than 10000 values", r, err, n)
		}
	}
}

// An integer geometric range with a factor close to 1 visits every
// integer once instead of stepping through billions of equal roundings.
func TestIntGeometricRangeFactorNearOne(t *testing.T) {
	done := make(chan struct{})
	var vals []any
	var err error
	go func() {
		defer close(done)
		vals, err = rangeValues(kInt, map[string]any{"from": int64(1), "to": int64(1000), "factor": 1.0000000001})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("rangeValues still running after 5 s")
	}
	if err != nil || len(vals) != 1000 || vals[0] != any(int64(1)) || vals[999] != any(int64(1000)) {
		t.Fatalf("got %d values (%v…), err %v; want 1..1000", len(vals), vals[:min(len(vals), 3)], err)
	}
	// An ordinary factor keeps its values.
	vals, err = rangeValues(kInt, map[string]any{"from": int64(1), "to": int64(10), "factor": 1.5})
	if got := formatVals(vals); err != nil || got != "1 2 3 5 8" {
		t.Fatalf("factor 1.5: got %q, %v; want 1 2 3 5 8", got, err)
	}
}

func formatVals(vs []any) string {
	var s []string
	for _, v := range vs {
		s = append(s, formatValue(v))
	}
	return strings.Join(s, " ")
}

// A cross product past maxConfigs is refused before any config is built,
// naming the keys that multiply it; it used to build them until the
// memory ran out (5,000³ configs: "fatal error: out of memory").
func TestCrossProductTooLargeIsRefused(t *testing.T) {
	_, s, err := writeSpec(t, `base = "base.toml"`+"\n[sweep]\n"+
		`"batch.max_num_seqs" = {from = 1, to = 5000, step = 1}`+"\n"+
		`"batch.max_num_batched_tokens" = {from = 5000, to = 9999, step = 1}`+"\n"+
		`"device.count" = {from = 1, to = 5000, step = 1}`+"\n"+sloTOML)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Expand(s, model.DefaultCatalog())
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Expand still building configs after 10 s")
	}
	for _, want := range []string{"sweep.toml", "more than 1000000 configs", "batch.max_num_seqs: 5000 values", "device.count: 5000 values"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
}
