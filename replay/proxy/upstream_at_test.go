package proxy

import (
	"strings"
	"testing"
)

// An '@' typed in the upstream's path is refused (a token with a '/'
// would be read as the host), but an escaped one, %40, is a path
// character like any other.
func TestValidateUpstreamAtInPath(t *testing.T) {
	for up, refused := range map[string]bool{
		"http://tok/en@host/v1":                 true,
		"http://host:8000/deployments/a%40b/v1": false,
		"http://host:8000/a%40b/v1%2Fx@y":       true,
	} {
		c := DefaultConfig()
		c.Upstream, c.Out = up, "t.parquet"
		err := c.Validate()
		got := err != nil && strings.Contains(err.Error(), "'@' in its path")
		if got != refused {
			t.Errorf("%s: error %v, want the '@' refused: %v", up, err, refused)
		}
	}
}
