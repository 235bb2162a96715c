package calibrate

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A calibration run's kind decides its role in a refit (replayed, fitted,
// probed for memory), and a refitted profile cites it: a kind that is no
// run kind is an error naming the file, not a run fitted as measured
// whose profile ParseProfile then refuses.
func TestReadRunRefusesUnknownKind(t *testing.T) {
	for _, kind := range []string{"Decode", "bogus", "decode "} {
		m := traces.Meta{Model: "m"}
		m.Set("calibrate_run", "decode-c4-r1")
		m.Set("calibrate_kind", kind)
		path := filepath.Join(t.TempDir(), "03-decode-c4-r1.parquet")
		if err := traces.WriteAll(path, m, []*traces.Request{row("decode-c4-r1/0", 64, 0, 40, 60)}); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRun(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "calibrate_kind") {
			t.Errorf("calibrate_kind = %q: read %+v, error %v; want an error naming the file and the key", kind, r, err)
		}
	}
}

// FuzzReadRunMeta: a run trace with any calibration metadata either fails
// with an error that names the file, or reads back as a run whose kind is
// one a profile can cite (or none), whose counts are within their limits
// and whose text model is finite. Crashers found are kept in
// testdata/fuzz/FuzzReadRunMeta, with the seeds.
func FuzzReadRunMeta(f *testing.F) {
	f.Fuzz(func(t *testing.T, name, kind, conc, reset, shared, salt, tpb, overhead, prefix string) {
		m := traces.Meta{Model: "m"}
		for _, kv := range [][2]string{{"calibrate_run", name}, {"calibrate_kind", kind}, {"concurrency", conc},
			{"slot_reset_tokens", reset}, {"shared_prompt_tokens", shared}, {"prompt_salt", salt},
			{"tokens_per_byte", tpb}, {"prompt_overhead_tokens", overhead}, {"prompt_prefix_tokens", prefix}} {
			if kv[1] != "" {
				m.Set(kv[0], kv[1])
			}
		}
		path := filepath.Join(t.TempDir(), "01-run.parquet")
		if err := traces.WriteAll(path, m, []*traces.Request{row("run/0", 64, 0, 40, 60)}); err != nil {
			t.Skip(err) // metadata the trace format cannot hold
		}
		r, err := ReadRun(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if r.Spec.Kind != "" && !slices.Contains(traceKinds, r.Spec.Kind) {
			t.Fatalf("calibrate_kind %q read as kind %q, which a profile cannot cite", kind, r.Spec.Kind)
		}
		if r.Spec.Concurrency < 0 || r.SlotReset < 0 || r.Shared < 0 {
			t.Fatalf("negative counts: concurrency %d, slot reset %d, shared %d", r.Spec.Concurrency, r.SlotReset, r.Shared)
		}
		for _, v := range []float64{r.Text.TokensPerByte, r.Text.Overhead, r.Text.Prefix} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("text model %+v is not finite", r.Text)
			}
		}
		if len(r.Rows) != 1 || r.Summary == nil || r.Trace == nil {
			t.Fatalf("read %d rows, summary %v, trace %v: want the row written", len(r.Rows), r.Summary, r.Trace)
		}
	})
}

// The repeat number is the run name's -rN suffix, as RunPlan writes it:
// a name whose suffix holds no such number is an error naming the file,
// not a run read as repeat 1 (or 2 of "r2x") and grouped apart from its
// repeats.
func TestReadRunRepeatFromName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		repeat int // 0: an error
	}{
		{"decode-c4-p64-r2", 2}, {"warmup", 1}, {"reset", 1}, {"mixed-c4-r1", 1},
		{"decode-c4-r2x", 0}, {"decode-c4-r", 0}, {"decode-c4-r0", 0}, {"decode-c4-r-1", 0}, {"decode-c4-r+2", 0}, {"decode-c4-r02", 0}, {"decode-c4-r1-x", 0},
	} {
		m := traces.Meta{Model: "m"}
		m.Set("calibrate_run", tc.name)
		m.Set("calibrate_kind", KindDecode)
		path := filepath.Join(t.TempDir(), "03-run.parquet")
		if err := traces.WriteAll(path, m, []*traces.Request{row(tc.name+"/0", 64, 0, 40, 60)}); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRun(path)
		switch {
		case tc.repeat == 0 && (err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "calibrate_run = "+strconv.Quote(tc.name))):
			t.Errorf("run %q: read %+v, error %v; want an error naming the file and the key", tc.name, r, err)
		case tc.repeat > 0 && err != nil:
			t.Errorf("run %q: %v", tc.name, err)
		case tc.repeat > 0 && r.Spec.Repeat != tc.repeat:
			t.Errorf("run %q: repeat %d, want %d", tc.name, r.Spec.Repeat, tc.repeat)
		}
	}
}
