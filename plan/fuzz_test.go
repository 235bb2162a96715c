package plan

import (
	"bytes"
	"testing"
)

// FuzzParse: Parse never panics, and a plan it accepts validates and
// survives an Encode/Parse round trip unchanged. Seeds: testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted a plan that does not validate: %v", err)
		}
		enc, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parsing the encoded plan: %v\n%s", err, enc)
		}
		enc2, _ := q.Encode()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the plan:\n%s\n%s", enc, enc2)
		}
	})
}
