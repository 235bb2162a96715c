// Package textcut shortens text to a byte budget without splitting a
// UTF-8 character: traces, tables and error messages must stay valid
// UTF-8.
package textcut

import "unicode/utf8"

// Head is the longest prefix of s of at most n bytes that ends between
// characters.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tail is the longest suffix of b of at most n bytes that starts at a
// character.
func Tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	cut := len(b) - n
	for cut < len(b) && !utf8.RuneStart(b[cut]) {
		cut++
	}
	return b[cut:]
}
