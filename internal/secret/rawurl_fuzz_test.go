package secret

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRawURL: a URL given as text that parses with credentials, masked
// by the set RawURL gives, shows neither its user nor its password of
// MinLen bytes or more, decoded or as typed; one that does not parse
// gives none. Seeds: testdata/fuzz/FuzzRawURL.
func FuzzRawURL(f *testing.F) {
	for _, s := range []string{
		"http://user:s3cretpw@localhost:8000/v1",
		"https://me:p%40ssword@api.example.com/v1?key=sk-abcdef",
		"http://us%65rLEAK:p%2fss%41LEAK@h/v1",
		"http://a:b@c@host/v1#frag",
		"http://me:pw@h:port/v1",
		"http://[::1]:8000/v1?api_key=abcd%2Bef",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := RawURL(raw)
		u, err := url.Parse(raw)
		if err != nil {
			if got != nil {
				t.Fatalf("RawURL(%q) = %q for a URL that does not parse", raw, got)
			}
			return
		}
		if u.User == nil {
			return
		}
		masked := New(got...).String(raw)
		pw, _ := u.User.Password()
		typedUser, typedPW, _ := strings.Cut(typedUserinfo(raw), ":")
		for _, v := range []string{u.User.Username(), pw, typedUser, typedPW} {
			if len(v) >= MinLen && !strings.Contains(Mask, v) && strings.Contains(masked, v) {
				t.Fatalf("RawURL(%q) masked: %q still shows %q", raw, masked, v)
			}
		}
	})
}
