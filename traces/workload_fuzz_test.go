package traces

import (
	"maps"
	"strconv"
	"strings"
	"testing"
)

// FuzzWorkload: any time_scale and replay.time_scale metadata (factor
// products such as "2*0.5") give a workload whose time_scale, when
// present, is not a product equal to 1, and which read back as metadata
// is itself (a sweep row's workload is its trace's, read back with the
// row's scale). The seed corpus is in testdata/fuzz/FuzzWorkload.
func FuzzWorkload(f *testing.F) {
	f.Fuzz(func(t *testing.T, scale, replayScale string) {
		m := Meta{Extra: map[string]string{"time_scale": scale, "replay.time_scale": replayScale, "slice": "0:10"}}
		w := Workload(m)
		if ts, ok := w["time_scale"]; ok {
			if x, err := strconv.ParseFloat(ts, 64); err == nil && x == 1 {
				t.Fatalf("%q × %q: time_scale %q kept though it is 1", scale, replayScale, ts)
			}
			if ts == "" || strings.HasPrefix(ts, "*") || strings.HasSuffix(ts, "*") {
				t.Fatalf("%q × %q: time_scale %q", scale, replayScale, ts)
			}
		}
		again := Workload(Meta{Extra: maps.Clone(w)})
		if !maps.Equal(again, w) {
			t.Fatalf("%q × %q: workload %v read back as %v", scale, replayScale, w, again)
		}
	})
}
