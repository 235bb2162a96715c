package tomlkeys

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestLine(t *testing.T) {
	data := `top = 1
[cost]
pue = 1.2
PUE = 1.3
peu = 1
[extra]
x = { y = 2 }
[a.b]
c = 1
[[entry]]
name = "one"
[[entry]]
name = "two"
bogus = 3
`
	var v any
	md, err := toml.Decode(data, &v)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{
		"top": 1, "cost": 2, "cost.pue": 3, "cost.PUE": 4, "cost.peu": 5, "extra": 6, "extra.x": 7, "extra.x.y": 7,
		"a.b": 8, "a.b.c": 9, "entry.bogus": 14,
		"nope": 0, "cost.nope": 0,
	} {
		if got := Line(data, md, toml.Key(strings.Split(key, "."))); got != want {
			t.Errorf("Line(%s) = %d, want %d", key, got, want)
		}
	}
}

// A table that holds the empty key "" is placed by the decoder on that
// key's line, not its header's: its line cannot be told.
func TestLineTableWithEmptyKey(t *testing.T) {
	data := "[bogus]\nx = 1\n\"\" = 2\n[[list]]\n\"\" = 3\n"
	var v any
	md, err := toml.Decode(data, &v)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"bogus": 0, "bogus.x": 2, "list": 0} {
		if got := Line(data, md, toml.Key(strings.Split(key, "."))); got != want {
			t.Errorf("Line(%s) = %d, want %d", key, got, want)
		}
	}
}

// A key whose value is a string over several lines is on the line where
// the string starts, not where it ends.
func TestLineMultilineString(t *testing.T) {
	data := "\xef\xbb\xbfnote = \"\"\"\nfirst\nsecond\"\"\"\nraw = '''\nx\n'''\n[t]\nk = 1\n"
	var v any
	md, err := toml.Decode(data, &v)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"note": 1, "raw": 4, "t": 7, "t.k": 8} {
		if got := Line(data, md, toml.Key(strings.Split(key, "."))); got != want {
			t.Errorf("Line(%s) = %d, want %d", key, got, want)
		}
	}
}
