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
