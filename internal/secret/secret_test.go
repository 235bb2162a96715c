package secret

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"SERVESIM_TEST_KEY", "sk-abcdef", "sk-abcdef"},
		{"SERVESIM_TEST_KEY", "  sk-abcdef\t", "sk-abcdef"}, // trimmed: the form a header carries
		{"SERVESIM_TEST_KEY", "", ""},
		{"", "sk-abcdef", ""}, // no variable named: no key
	} {
		t.Setenv("SERVESIM_TEST_KEY", tc.value)
		if got := Env(tc.env); got != tc.want {
			t.Errorf("Env(%q) with %q set = %q, want %q", tc.env, tc.value, got, tc.want)
		}
	}
}

func TestURL(t *testing.T) {
	u, _ := url.Parse("http://userLEAK:pwLEAK@h/v1?api-key=keyLEAK&x=1")
	got := URL(u)
	// dXNlckxFQUs6cHdMRUFL is base64 of userLEAK:pwLEAK, the basic credential sent.
	for _, want := range []string{"userLEAK", "pwLEAK", "dXNlckxFQUs6cHdMRUFL", "keyLEAK"} {
		if !slices.Contains(got, want) {
			t.Errorf("URL = %q, want %q in it", got, want)
		}
	}
	if got := New(URL(u)...); slices.Contains(got, "1") {
		t.Errorf("New(URL) = %q: a value under %d bytes would mask ordinary text", got, MinLen)
	}
	// A credential with characters a URL escapes is masked as typed too.
	u, _ = url.Parse("http://us%2Fer:p%40ssLEAK@h/v1")
	if got := New(URL(u)...).String("--base-url http://us%2Fer:p%40ssLEAK@h/v1 p@ssLEAK"); got != "--base-url http://[redacted]:[redacted]@h/v1 [redacted]" {
		t.Errorf("masked as %q", got)
	}
	// A query keeps its names; a value is masked decoded and as typed.
	for _, c := range []struct{ url, text, want string }{
		{"http://h/v1?key=sk-abcdef&x=1", "http://h/v1?key=sk-abcdef&x=1", "http://h/v1?key=[redacted]&x=1"},
		{"http://h/v1?key=sk%2Babcdef", "http://h/v1?key=sk%2Babcdef sk+abcdef", "http://h/v1?key=[redacted] [redacted]"},
		{"http://h/v1?sk-abcdef", "http://h/v1?sk-abcdef", "http://h/v1?[redacted]"},
		// Pairs after a ';', which Go's parser drops and servers may read.
		{"http://h/v1?x=1;key=sk-abcdef", "bad key sk-abcdef", "bad key [redacted]"},
		{"http://h/v1?x=1;key=sk%2Babcdef;y=2", "bad key sk+abcdef", "bad key [redacted]"},
		{"http://h/v1?key=sk;abcdef", "bad key sk;abcdef", "bad key [redacted]"},
	} {
		u, _ = url.Parse(c.url)
		if got := New(URL(u)...).String(c.text); got != c.want {
			t.Errorf("%s: %q masked as %q, want %q", c.url, c.text, got, c.want)
		}
	}
	// Escaped otherwise than Go escapes it ("%2f", an escaped letter), the
	// user info as typed is masked too.
	typed := "--base-url http://us%65rLEAK:p%2fss%41LEAK@h/v1"
	if got := New(RawURL("http://us%65rLEAK:p%2fss%41LEAK@h/v1")...).String(typed); strings.Contains(got, "LEAK") {
		t.Errorf("%q masked as %q", typed, got)
	}
	u, _ = url.Parse("http://h/v1")
	if got := New(URL(u)...); len(got) != 0 {
		t.Errorf("the secrets of a plain URL = %q", got)
	}
	if RawURL("http://me:pw@h:port/v1") != nil || URL(nil) != nil {
		t.Error("a URL that does not parse has secrets")
	}
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"masked", []string{"sk-abcdef"}, "bad key sk-abcdef here", "bad key [redacted] here"},
		{"every one", []string{"sk-abcdef"}, "sk-abcdef,sk-abcdef", "[redacted],[redacted]"},
		{"short is not a secret", []string{"abc"}, "abc abcd", "abc abcd"},
		{"at the minimum", []string{"abcd"}, "abc abcd", "abc [redacted]"},
		{"empty", []string{""}, "text", "text"},
		// masked before a shorter one inside it, which would leave the rest
		{"a longer one first", []string{"abcd", "sk-abcdefgh"}, "sk-abcdefgh abcd", "[redacted] [redacted]"},
		{"twice given", []string{"sk-abcdef", "sk-abcdef"}, "sk-abcdef", "[redacted]"},
		{"none", nil, "sk-abcdef", "sk-abcdef"},
	} {
		s := New(tc.secrets...)
		if got := s.String(tc.text); got != tc.want {
			t.Errorf("%s: New(%q).String(%q) = %q, want %q", tc.name, tc.secrets, tc.text, got, tc.want)
		}
		if got := string(s.Bytes([]byte(tc.text))); got != tc.want {
			t.Errorf("%s: New(%q).Bytes(%q) = %q, want %q", tc.name, tc.secrets, tc.text, got, tc.want)
		}
	}
}

func TestCutEnd(t *testing.T) {
	s := New("sk-abcdefgh")
	for text, want := range map[string]string{
		"error: sk-abcd":     "error: [redacted]",  // a cut left 7 bytes of it
		"error: sk-a":        "error: [redacted]",  // MinLen bytes of it
		"error: sk-":         "error: sk-",         // too little to say it is the key
		"error: sk-abcdefgh": "error: sk-abcdefgh", // whole: String's to mask
		"error: none":        "error: none",
	} {
		if got := string(s.CutEnd([]byte(text))); got != want {
			t.Errorf("CutEnd(%q) = %q, want %q", text, got, want)
		}
	}
}

// A server may carry a secret on URL-encoded (a redirect's query): the
// encoded form is the secret too.
func TestSetMasksURLEncodedForms(t *testing.T) {
	s := New("sk-LE+AK/5f3a=9b&x")
	for _, text := range []string{
		"redirects to http://x/?k=sk-LE%2BAK%2F5f3a%3D9b%26x", // query escaping
		"redirects to http://x/sk-LE+AK%2F5f3a=9b&x",          // path escaping
	} {
		if got := s.String(text); strings.Contains(got, "LE") {
			t.Errorf("String(%q) = %q: the encoded secret shows", text, got)
		}
	}
}

// A raw body is JSON, whose strings may escape a secret's characters: Go's
// encoder escapes '<', '>' and '&', others '/' as "\/".
func TestSetMasksJSONEscapedForms(t *testing.T) {
	s := New("sk-LE&AK<5f>/x")
	for _, text := range []string{
		`{"error":"bad Bearer sk-LE\u0026AK\u003c5f\u003e/x"}`,
		`{"error":"bad Bearer sk-LE&AK<5f>\/x"}`,
	} {
		if got := s.String(text); strings.Contains(got, "LE") {
			t.Errorf("String(%q) = %q: the escaped secret shows", text, got)
		}
	}
}
