package traces

import "testing"

// Lengths resampled from a trace whose token counts were estimated from
// text (a ShareGPT import) are estimates too: the synthetic trace says so.
func TestSynthResampleRecordsLengthEstimate(t *testing.T) {
	q := &Request{}
	q.Reset()
	q.PromptTokens, q.OutputTokens = 10, 1
	synthFrom := func(extra map[string]string) Meta {
		src := &sliceReader{meta: Meta{Source: "sharegpt:in.json", Checksums: map[string]string{"in.json": "sha256:ab12"}, Extra: extra}, rows: []*Request{q}}
		e, err := NewEmpirical(src)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultSynthConfig()
		c.Requests, c.Resample = 2, e
		m, _ := synthAll(t, c)
		return m
	}
	estimated := synthFrom(map[string]string{"length_estimate": "ceil(utf8_bytes/4)"})
	if got := estimated.Extra["length_estimate"]; got != "ceil(utf8_bytes/4)" {
		t.Errorf("meta %+v: length_estimate %q, want the source's ceil(utf8_bytes/4)", estimated.Extra, got)
	}
	counted := synthFrom(nil)
	if got, ok := counted.Extra["length_estimate"]; ok {
		t.Errorf("meta %+v: length_estimate %q set for a source with counted tokens", counted.Extra, got)
	}
}
