// Package secret is the one rule by which servesim keeps a credential out
// of everything it writes (stdout, stderr, logs, traces, profiles,
// records, raw bodies, errors): the API key, the value of an environment
// variable trimmed of spaces, and a URL's credentials are each replaced by
// Mask wherever they appear. A value shorter than MinLen bytes is not a
// secret: masking it would mask ordinary text, and it says nothing anyway.
package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Mask is what a secret is written as.
const Mask = "[redacted]"

// MinLen is the shortest value masked.
const MinLen = 4

// Env is the secret an environment variable holds: its value, trimmed
// (the form a header carries once a server trims it, and a part of the
// value as set); "" when env is "" or unset.
func Env(env string) string {
	if env == "" {
		return ""
	}
	return strings.TrimSpace(os.Getenv(env))
}

// URL is the parts of u a server could echo back that are not shown: its
// user and password (decoded, and escaped as a URL holds them), the basic
// credential sent for them (base64 of user:password, which decodes to the
// password), and each query value, decoded and as typed.
func URL(u *url.URL) []string {
	if u == nil {
		return nil
	}
	var s []string
	if u.User != nil {
		pw, _ := u.User.Password()
		s = append(s, u.User.Username(), pw, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)))
		// And each escaped as a URL holds them ("p%40ss"); RawURL adds
		// them as typed.
		user, epw, _ := strings.Cut(u.User.String(), ":")
		s = append(s, user, epw)
	}
	for _, vs := range u.Query() {
		s = append(s, vs...)
	}
	// Each value as typed ("sk%2Bab"), not the whole raw query, so that a
	// masked query keeps its names ("?key=[redacted]").
	for _, part := range strings.Split(u.RawQuery, "&") {
		s = append(s, queryValue(part))
		if !strings.Contains(part, ";") {
			continue
		}
		// Pairs after a ';', which Query drops and a server may read as
		// pairs: each value as typed and decoded.
		for _, p := range strings.Split(part, ";") {
			v := queryValue(p)
			s = append(s, v)
			if dec, err := url.QueryUnescape(v); err == nil {
				s = append(s, dec)
			}
		}
	}
	return s
}

// queryValue is the value of a query pair as typed, or the whole part
// when it has no "=" (it may be the key itself).
func queryValue(part string) string {
	if _, v, ok := strings.Cut(part, "="); ok {
		return v
	}
	return part
}

// RawURL is URL for a URL given as text, with its user and password as
// typed there, as a command holding the URL shows them: u.User escapes
// them afresh, which is not how they were typed when the text escapes
// otherwise ("p%2fss", an escaped letter). None when it does not parse.
func RawURL(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	s := URL(u)
	if u.User != nil {
		user, pw, _ := strings.Cut(typedUserinfo(raw), ":")
		s = append(s, user, pw)
	}
	return s
}

// typedUserinfo is the user info of raw, a URL that parses, as typed:
// what comes before the last '@' of its authority, as url.Parse finds it.
func typedUserinfo(raw string) string {
	raw, _, _ = strings.Cut(raw, "#")
	raw, _, _ = strings.Cut(raw, "?")
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return ""
	}
	authority, _, _ := strings.Cut(rest, "/")
	i := strings.LastIndex(authority, "@")
	if i < 0 {
		return ""
	}
	return authority[:i]
}

// Set is the secrets to mask, each of at least MinLen bytes, longest
// first: a shorter one inside a longer one (a URL's user inside the key)
// masked first would leave the rest of the longer one showing.
type Set []string

// New is the set of vals that are secrets, each also as a URL's query and
// path escape it and as a JSON string holds it: a server may carry one on
// in a URL (a redirect's Location), where a key holding '+', '/' or '=' is
// escaped, or echo it in a JSON body (a raw body is saved as sent), where
// Go's encoder escapes '<', '>' and '&', and others '/' as "\/".
func New(vals ...string) Set {
	var s Set
	for _, v := range vals {
		if len(v) < MinLen {
			continue
		}
		js := jsonEscape(v, false)
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v), js, jsonEscape(v, true), strings.ReplaceAll(js, "/", `\/`)} {
			if !slices.Contains(s, form) {
				s = append(s, form)
			}
		}
	}
	slices.SortStableFunc(s, func(a, b string) int { return len(b) - len(a) })
	return s
}

// jsonEscape is v as it stands between the quotes of a JSON string that
// Go's encoder writes, with '<', '>' and '&' escaped when html.
func jsonEscape(v string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(v)                                  // a string always encodes
	quoted := strings.TrimSuffix(b.String(), "\n") // Encode ends it with a newline
	return quoted[1 : len(quoted)-1]
}

// String is text with every secret masked.
func (s Set) String(text string) string {
	for _, sec := range s {
		text = strings.ReplaceAll(text, sec, Mask)
	}
	return text
}

// Bytes is data with every secret masked; data is left as it is.
func (s Set) Bytes(data []byte) []byte {
	for _, sec := range s {
		data = bytes.ReplaceAll(data, []byte(sec), []byte(Mask))
	}
	return data
}

// CutEnd masks the start of a secret that b ends with, at least MinLen
// bytes of it: what a cut left of a secret whose rest is not there.
func (s Set) CutEnd(b []byte) []byte {
	for _, sec := range s {
		for k := len(sec) - 1; k >= MinLen; k-- {
			if bytes.HasSuffix(b, []byte(sec[:k])) {
				return append(b[:len(b)-k:len(b)-k], Mask...)
			}
		}
	}
	return b
}
