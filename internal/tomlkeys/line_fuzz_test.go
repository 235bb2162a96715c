package tomlkeys

import (
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// FuzzLine: for every key of any TOML document, Line never panics and
// gives 0 or a line of the document, and the line it gives for a bare key
// spells that key. Seeds: testdata/fuzz/FuzzLine.
func FuzzLine(f *testing.F) {
	f.Fuzz(func(t *testing.T, data string) {
		var v any
		md, err := toml.Decode(data, &v)
		if err != nil {
			return
		}
		lines := strings.Split(data, "\n")
		for _, key := range md.Keys() {
			n := Line(data, md, key)
			if n < 0 || n > len(lines) {
				t.Fatalf("Line(%s) = %d, outside the document's %d lines:\n%s", key, n, len(lines), data)
			}
			if last := key[len(key)-1]; n > 0 && bareKey.MatchString(last) && !strings.Contains(lines[n-1], last) {
				t.Fatalf("Line(%s) = %d, but line %d is %q:\n%s", key, n, n, lines[n-1], data)
			}
		}
	})
}
