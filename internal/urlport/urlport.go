// Package urlport checks the port a user-given URL names, so that a
// command can refuse it before any dial.
package urlport

import (
	"net/url"
	"strconv"
)

// InRange reports whether u names no port or one a connection can use:
// url.Parse takes any digits, and every dial would fail on them.
func InRange(u *url.URL) bool {
	p := u.Port()
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
