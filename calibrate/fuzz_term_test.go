package calibrate

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseTerm: any string either fails with an error that quotes it and
// lists the term names, or is the String name of a term in
// [0, NumTerms) in any case, the index --without and a profile's
// method.without set.
// Crashers found are kept in testdata/fuzz/FuzzParseTerm.
func FuzzParseTerm(f *testing.F) {
	for _, s := range []string{
		"c0", "cp", "ca", "cd", "ck", "crp", "crd", "cr", "cq", "dense@1", "dense@8192", "dense@3", "dense@1e3",
		"dense@01", "dense@", "dense", "C0", " cp", "cx", "", "Term(23)", "Term(-1)", "dense@16384", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		term, err := ParseTerm(in)
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, strconv.Quote(in)) || !strings.Contains(msg, strings.Join(termNames[:], ", ")) || term != 0 {
				t.Fatalf("ParseTerm(%q) = %v, %q: want term 0 and an error quoting the input and listing the terms", in, term, msg)
			}
			return
		}
		if term < 0 || int(term) >= NumTerms {
			t.Fatalf("ParseTerm(%q) = %d, outside [0, %d)", in, int(term), NumTerms)
		}
		if !strings.EqualFold(term.String(), in) {
			t.Fatalf("ParseTerm(%q) = %d, whose name is %q", in, int(term), term.String())
		}
		var without [NumTerms]bool
		without[term] = true
		if o, err := (&FitMethod{Without: []string{in}}).Options(); err != nil || o.Without != without {
			t.Fatalf("method.without [%q]: %v, %v", in, o.Without, err)
		}
	})
}
