package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestCutsBetweenCharacters(t *testing.T) {
	s := "abжжж" // ж is 2 bytes
	for n := 0; n <= len(s)+1; n++ {
		h, tl := Head(s, n), string(Tail([]byte(s), n))
		if !utf8.ValidString(h) || !utf8.ValidString(tl) || len(h) > n || len(tl) > n {
			t.Errorf("n %d: head %q, tail %q: want valid UTF-8 of at most n bytes", n, h, tl)
		}
		if n >= len(s) && (h != s || tl != s) {
			t.Errorf("n %d: head %q, tail %q: want s whole", n, h, tl)
		}
	}
	if h := Head(s, 5); h != "abж" {
		t.Errorf("Head(s, 5) = %q, want %q", h, "abж")
	}
	if tl := string(Tail([]byte(s), 5)); tl != "жж" {
		t.Errorf("Tail(s, 5) = %q, want %q", tl, "жж")
	}
}
