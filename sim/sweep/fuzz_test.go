package sweep

import "testing"

// FuzzParseSpec: ParseSpec never panics on any input, and rejects or
// accepts it with a spec whose axes are non-empty. Seeds:
// testdata/fuzz/FuzzParseSpec.
func FuzzParseSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data, "")
		if err != nil || s == nil {
			return
		}
		for _, a := range s.Axes {
			if len(a.Values) == 0 {
				t.Fatalf("accepted an empty axis %+v", a)
			}
		}
	})
}
