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

// Each table of an array of tables has its own lines: the decoder keeps
// one position a key, the last table's.
func TestEntryLine(t *testing.T) {
	data := "top = 1\n[[e]]\nname = \"a\"\n[[e]]\nname = \"\"\"\nb\"\"\"\nx = 2\n[e.sub]\ny = 3\n[[e]]\nx = 4\n[other]\nname = 5\n"
	for _, c := range []struct {
		i    int
		key  string
		want int
	}{
		{0, "", 2}, {0, "name", 3}, {1, "", 4}, {1, "name", 5}, {1, "x", 7}, {1, "sub", 8}, {1, "sub.y", 9},
		{2, "", 10}, {2, "x", 11},
		{0, "x", 0}, {2, "name", 0}, {3, "", 0},
	} {
		var key toml.Key
		if c.key != "" {
			key = strings.Split(c.key, ".")
		}
		if got := EntryLine(data, toml.Key{"e"}, c.i, key); got != c.want {
			t.Errorf("EntryLine(e, %d, %q) = %d, want %d", c.i, c.key, got, c.want)
		}
	}
	if got := EntryLine(data, toml.Key{"other"}, 0, toml.Key{"name"}); got != 0 {
		t.Errorf("EntryLine of a table that is no array = %d, want 0", got)
	}
}

// The keys of an array of inline tables have lines, as those of an array
// of tables do.
func TestLineArrayOfInlineTables(t *testing.T) {
	data := "top = 1\nentry = [\n  { name = \"one\" },\n  { name = \"two\", bogus = 3 },\n]\n"
	var v any
	md, err := toml.Decode(data, &v)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"entry": 2, "entry.bogus": 4} {
		if got := Line(data, md, toml.Key(strings.Split(key, "."))); got != want {
			t.Errorf("Line(%s) = %d, want %d", key, got, want)
		}
	}
}
