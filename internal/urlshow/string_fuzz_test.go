package urlshow

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzString: a URL given as text, parsed or not, is shown with no query
// or fragment and no user info but the mask: every '@' shown follows
// "//xxxxx", and a URL that parses with user info and is shown at all
// shows the mask in its place. Seeds: testdata/fuzz/FuzzString.
func FuzzString(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		shown := String(raw)
		if again := String(raw); again != shown {
			t.Fatalf("String(%q) = %q, then %q", raw, shown, again)
		}
		if leak := unmasked(shown); leak != "" {
			t.Fatalf("String(%q) = %q: %s", raw, shown, leak)
		}
		u, err := url.Parse(raw)
		if err != nil {
			if shown != Hidden && !strings.HasPrefix(raw, shown) {
				t.Fatalf("String(%q) = %q for text that does not parse: want Hidden or a prefix of it", raw, shown)
			}
			return
		}
		if u.User != nil && shown != Hidden && !strings.Contains(shown, "//xxxxx@") {
			t.Fatalf("String(%q) = %q: user info not masked", raw, shown)
		}
	})
}

// unmasked names what s shows that may hold a secret, "" when nothing.
func unmasked(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		return "shows a query or fragment"
	}
	parts := strings.Split(s, "@")
	for _, before := range parts[:len(parts)-1] {
		if !strings.HasSuffix(before, "//xxxxx") {
			return "shows user info other than the mask"
		}
	}
	return ""
}
