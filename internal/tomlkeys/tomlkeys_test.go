package tomlkeys

import (
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
)

type inner struct {
	MaxSeqs int `toml:"max_num_seqs"`
	Plain   int
}

type Embedded struct {
	Deep string `toml:"deep"`
}

type doc struct {
	Embedded
	Cost    inner            `toml:"cost"`
	Entries []inner          `toml:"entry"`
	Named   map[string]inner `toml:"named"`
	Free    map[string]any   `toml:"free"`
	Ptr     *inner           `toml:"ptr"`
}

func TestMiscased(t *testing.T) {
	const text = `
deep = "a"
Deep = "b"
[cost]
max_num_seqs = 1
Max_Num_Seqs = 2
plain = 3
[[entry]]
max_num_seqs = 4
[[entry]]
MAX_NUM_SEQS = 5
[named.Some_Name]
max_num_seqs = 6
Plain = 7
[free]
Whatever = 8
[PTR]
max_num_seqs = 9
`
	var d doc
	md, err := toml.Decode(text, &d)
	if err != nil {
		t.Fatal(err)
	}
	got := Miscased(md, &d)
	want := []string{
		"Deep (keys are case-sensitive: deep)",
		"cost.Max_Num_Seqs (keys are case-sensitive: cost.max_num_seqs)",
		"cost.plain (keys are case-sensitive: cost.Plain)",
		"entry.MAX_NUM_SEQS (keys are case-sensitive: entry.max_num_seqs)",
		"PTR (keys are case-sensitive: ptr)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Miscased:\n got %q\nwant %q", got, want)
	}
}

func TestMiscasedNoneWhenExact(t *testing.T) {
	var d doc
	md, err := toml.Decode("deep = \"x\"\n[cost]\nmax_num_seqs = 1\nPlain = 2\n[named.X]\nmax_num_seqs = 3\n", &d)
	if err != nil {
		t.Fatal(err)
	}
	if got := Miscased(md, &d); len(got) != 0 {
		t.Errorf("Miscased = %q, want none", got)
	}
}
