package calibrate

import "testing"

// FuzzParseProfile: ParseProfile never panics, and a profile it accepts
// validates and survives Marshal/ParseProfile. Seeds:
// testdata/fuzz/FuzzParseProfile.
func FuzzParseProfile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted a profile that does not validate: %v", err)
		}
		out, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseProfile(out); err != nil {
			t.Fatalf("re-parsing the marshalled profile: %v", err)
		}
	})
}
