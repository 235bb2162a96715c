package urlport

import (
	"net/url"
	"testing"
)

func TestInRange(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://h/v1":                         true,
		"http://h:1/v1":                       true,
		"http://h:65535/v1":                   true,
		"http://[::1]:8000/v1":                true,
		"http://h:/v1":                        true, // no port: the scheme's
		"http://h:0/v1":                       false,
		"http://h:65536/v1":                   false,
		"http://h:99999999999999999999999/v1": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := InRange(u); got != want {
			t.Errorf("InRange(%s) = %v, want %v", raw, got, want)
		}
	}
}
