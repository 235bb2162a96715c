package urlshow

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:8000/v1":                       "http://127.0.0.1:8000/v1",
		"http://meLEAK:PWLEAK@h:8000/v1":                 "http://xxxxx@h:8000/v1",
		"http://meLEAK@h:8000/v1":                        "http://xxxxx@h:8000/v1",
		"https://TOKENLEAK@h/v1":                         "https://xxxxx@h/v1",
		"http://:PWLEAK@h/v1":                            "http://xxxxx@h/v1",
		"http://@h/v1":                                   "http://@h/v1",
		"https://h/v1?api-key=QLEAK":                     "https://h/v1",
		"https://h/v1?":                                  "https://h/v1",
		"https://h/v1#QLEAK":                             "https://h/v1",
		"http://me:PWLEAK@h/v1?api-key=QLEAK#QLEAK":      "http://xxxxx@h/v1",
		"ftp://me:PWLEAK@h/x":                            "ftp://xxxxx@h/x",
		"h:8000/v1?key=QLEAK":                            "h:8000/v1", // does not parse (a colon in the first segment)
		"http://h:port/v1?key=QLEAK":                     "http://h:port/v1",
		"http://me:PWLEAK@h:port/v1":                     Hidden,
		"http://me:PW%zzLEAK@h/v1":                       Hidden,
		"http:me:PWLEAK@h/v1":                            Hidden, // opaque
		"me:PWLEAK@h:8000":                               Hidden, // scheme "me", opaque
		"https://TOKLEAK/DEF+ghiLEAK@api.example.com/v1": Hidden, // a '/' in the token ends the host
		"http://h/v1/a@b":                                Hidden, // as if the user info were cut
		"http://h/v1/a%40b":                              "http://h/v1/a%40b",
		"":                                               "",
	} {
		got := String(raw)
		if got != want {
			t.Errorf("String(%q) = %q, want %q", raw, got, want)
		}
		if strings.Contains(got, "LEAK") {
			t.Errorf("String(%q) = %q shows a secret", raw, got)
		}
	}
}

func TestURLKeepsTheGivenURL(t *testing.T) {
	u, _ := url.Parse("http://me:PWLEAK@h/v1?k=QLEAK#f")
	if got := URL(u); got != "http://xxxxx@h/v1" {
		t.Errorf("URL = %q", got)
	}
	if u.String() != "http://me:PWLEAK@h/v1?k=QLEAK#f" {
		t.Errorf("URL changed its argument: %s", u)
	}
	if URL(nil) != "" {
		t.Error("URL(nil) is not empty")
	}
}

// A client error quotes the URL, query and all; Error names it as shown.
func TestError(t *testing.T) {
	raw := "http://me:PWLEAK@127.0.0.1:1/v1?api-key=QLEAK"
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, raw, nil)
	_, err := http.DefaultClient.Do(req)
	if err == nil || !strings.Contains(err.Error(), "QLEAK") {
		t.Skipf("the client error does not quote the query here: %v", err)
	}
	err = Error(err, String(raw))
	if s := err.Error(); strings.Contains(s, "LEAK") || !strings.Contains(s, "http://xxxxx@127.0.0.1:1/v1") {
		t.Errorf("Error: %s", s)
	}
	plain := errors.New("plain")
	if Error(plain, "x") != plain {
		t.Error("Error changed an error with no URL in it")
	}
}
