package proxy

import (
	"strings"
	"testing"
)

// A header name no request can carry (a space, a colon typed after it)
// would never match: every row's session or class would be silently
// empty. Validate refuses it, naming the field.
func TestValidateRefusesBadHeaderNames(t *testing.T) {
	good := DefaultConfig()
	good.Upstream, good.Out = "http://127.0.0.1:8000", "t.parquet"
	good.ClassHeader = "X-Tenant"
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, name string }{
		{"SessionHeader", "X-Session-Id:"}, {"SessionHeader", "X Session"}, {"ClassHeader", "X-Tenant\n"}, {"ClassHeader", "Tenant/Id"},
	} {
		cfg := good
		if c.field == "SessionHeader" {
			cfg.SessionHeader = c.name
		} else {
			cfg.ClassHeader = c.name
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s %q: %v, want an error naming %s", c.field, c.name, err, c.field)
		}
	}
}

// The session and class are written to the trace, which never holds a
// credential: a header that carries one cannot name them.
func TestValidateRefusesCredentialHeaders(t *testing.T) {
	for _, name := range []string{"Authorization", "authorization", "Api-Key", "X-API-Key", "Cookie", "Proxy-Authorization", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key"} {
		for _, field := range []string{"SessionHeader", "ClassHeader"} {
			cfg := DefaultConfig()
			cfg.Upstream, cfg.Out = "http://127.0.0.1:8000", "t.parquet"
			if field == "SessionHeader" {
				cfg.SessionHeader = name
			} else {
				cfg.ClassHeader = name
			}
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), field) {
				t.Errorf("%s %q: %v, want an error naming %s", field, name, err, field)
			}
		}
	}
}
