package traces

import (
	"maps"
	"testing"
)

// Lengths resampled from a slice of a file are drawn from that window's
// rows, not the file's: the synthetic trace records the window, and its
// workload differs from one resampled from the whole file.
func TestSynthResampleRecordsSourceSlice(t *testing.T) {
	q := &Request{}
	q.Reset()
	q.PromptTokens, q.OutputTokens = 10, 1
	synthFrom := func(extra map[string]string) Meta {
		src := &sliceReader{meta: Meta{Source: "azure:in.csv", Checksums: map[string]string{"in.csv": "sha256:ab12"}, Extra: extra}, rows: []*Request{q}}
		e, err := NewEmpirical(src)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultSynthConfig()
		c.Requests, c.Resample = 2, e
		m, _ := synthAll(t, c)
		return m
	}
	whole := synthFrom(nil)
	window := synthFrom(map[string]string{"slice": "from_ns=0 head=100"})
	if got := window.Extra["resample_slice"]; got != "from_ns=0 head=100" {
		t.Errorf("meta %+v: resample_slice %q, want the source's slice from_ns=0 head=100", window.Extra, got)
	}
	if _, ok := whole.Extra["resample_slice"]; ok {
		t.Errorf("meta %+v: resample_slice set for a source that is no slice", whole.Extra)
	}
	if ww, wn := Workload(whole), Workload(window); maps.Equal(ww, wn) {
		t.Errorf("resampled from the whole file and from a slice: both Workload %v, want them told apart", ww)
	}
}
