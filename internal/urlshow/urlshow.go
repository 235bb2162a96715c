// Package urlshow gives the form of a user-given URL that servesim may
// write to stdout, stderr, a log, a file or an error: a URL can carry a
// secret as much as an API key can (http://user:PASSWORD@host/v1, a token
// as the user, https://TOKEN@host/v1, http://host/v1?api-key=KEY), and
// none is ever written. The URL as given is kept for connecting; its
// credentials, for masking in text a server sends, are secret.URL.
package urlshow

import (
	"errors"
	"net/url"
	"strings"
)

// Hidden stands for a URL none of which is shown: it does not parse, and
// the part that would show could hold a password.
const Hidden = "(the URL given, not shown: it may hold a password)"

// URL returns u as it may be shown: its user info, user and password
// alike (a token is often given as the user), masked as "xxxxx", and its
// query and fragment, which may hold a key, left out; host, port and path
// are kept. A URL with no host whose opaque part holds an '@'
// ("http:user:pw@host") is Hidden, and so is one whose path holds an '@':
// user info with a '/' in it (https://TOKEN/PART@host/v1) parses as host
// TOKEN and path /PART@host/v1, and no OpenAI-compatible base URL has an
// '@' in its path (an escaped one, %40, is shown).
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = "", false, "", ""
	if strings.Contains(c.Opaque, "@") || strings.Contains(c.EscapedPath(), "@") {
		return Hidden
	}
	if c.User.String() != "" {
		c.User = url.User("xxxxx")
	}
	return c.String()
}

// String is URL for a URL given as text. Text that does not parse is
// shown up to its first '?' or '#', and only when that part holds no '@'
// (else it is Hidden): the parse error, which quotes the text whole, is
// never what is shown.
func String(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return URL(u)
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if strings.Contains(raw, "@") {
		return Hidden
	}
	return raw
}

// Error returns err with the URL quoted by the *url.Error in it, if any,
// set to shown: net/http's client errors quote the request's URL with its
// query and user name (only its password masked). It changes that *url.Error in
// place.
func Error(err error, shown string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = shown
	}
	return err
}
