// Package urlshow gives the form of a user-given URL that servesim may
// write to stdout, stderr, a log, a file or an error: a URL can carry a
// secret as much as an API key can (http://user:PASSWORD@host/v1, a token
// as the user, https://TOKEN@host/v1, http://host/v1?api-key=KEY), and
// none is ever written. The URL as given is kept for connecting.
package urlshow

import (
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// Hidden stands for a URL none of which is shown: it does not parse, and
// the part that would show could hold a password.
const Hidden = "(the URL given, not shown: it may hold a password)"

// URL returns u as it may be shown: its user info, user and password
// alike (a token is often given as the user), masked as "xxxxx", and its
// query and fragment, which may hold a key, left out; host, port and path
// are kept. A URL with no host whose opaque part holds an '@'
// ("http:user:pw@host") is Hidden.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = "", false, "", ""
	if strings.Contains(c.Opaque, "@") {
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

// Secrets returns the parts of u a server could echo back that are not
// shown: its user, password, the basic credential sent for them (base64
// of user:password, which decodes to the password), raw query and each
// query value, the ones of at least 4 bytes (a shorter one would mask
// ordinary text). Text a server sends (an error body, a redirect) has them
// replaced before it is written.
func Secrets(u *url.URL) []string {
	if u == nil {
		return nil
	}
	var s []string
	if u.User != nil {
		pw, _ := u.User.Password()
		s = append(s, u.User.Username(), pw, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)))
	}
	s = append(s, u.RawQuery)
	for _, vs := range u.Query() {
		s = append(s, vs...)
	}
	return slices.DeleteFunc(s, func(v string) bool { return len(v) < 4 })
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
