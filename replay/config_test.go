package replay

import (
	"strings"
	"testing"
)

// A base URL that is refused is named in the error, without its password.
func TestValidateBaseURLHidesPassword(t *testing.T) {
	for _, raw := range []string{"ftp://user:s3cret-pw@host/v1", "http://user:s3cret-pw@host:bad port/v1", "user:s3cret-pw@host"} {
		c := Config{BaseURL: raw, Model: "m"}
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "BaseURL") {
			t.Fatalf("%s: error %v, want one naming BaseURL", raw, err)
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: error shows the password: %v", raw, err)
		}
	}
}

// An '@' typed in the path is refused (a token with a '/' would be read as
// the host), but an escaped one, %40, is a path character like any other.
func TestValidateBaseURLAtInPath(t *testing.T) {
	for raw, refused := range map[string]bool{
		"http://tok/en@host/v1":                 true,
		"http://host:8000/deployments/a%40b/v1": false,
		"http://host:8000/a%40b/v1%2Fx@y":       true,
	} {
		c := Config{BaseURL: raw, Model: "m", APIKeyEnv: "K"}
		err := c.Validate()
		got := err != nil && strings.Contains(err.Error(), "'@' in its path")
		if got != refused {
			t.Errorf("%s: error %v, want the '@' refused: %v", raw, err, refused)
		}
	}
}

// A base URL with an escaped '@' (%40) is posted to as given, the escape
// kept, and shown in errors rather than hidden as if it held credentials.
func TestClientKeepsEscapedAtInBaseURL(t *testing.T) {
	cfg := Config{BaseURL: "http://host:8000/deployments/a%40b/v1/", Model: "m", APIKeyEnv: "SERVESIM_TEST_KEY_UNSET", Endpoint: Chat}
	c := mustClient(t, &cfg)
	const want = "http://host:8000/deployments/a%40b/v1/chat/completions"
	if c.url != want || c.shown != want {
		t.Errorf("posts to %q, shown as %q: want both %q", c.url, c.shown, want)
	}
}
