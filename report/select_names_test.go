package report

import (
	"strings"
	"testing"
)

// A selector that names no plan, or an input of several plans given none,
// lists the plans' names: they are the TOML files' stems, which the user
// may not have at hand.
func TestSelectErrorListsThePlanNames(t *testing.T) {
	in := &Inputs{Runs: []*Run{{Name: "serial"}, {Name: "fixed"}, {Name: "continuous"}}}
	for _, sel := range []string{"nope", ""} {
		_, err := in.Select(sel)
		if err == nil || !strings.HasSuffix(err.Error(), `: its runs are "serial", "fixed", "continuous"`) {
			t.Errorf("Select(%q) error %v, want it to list the plan names", sel, err)
		}
	}
}

// A long list of runs is cut short, saying how many it left out.
func TestSelectErrorCutsALongListOfNames(t *testing.T) {
	in := &Inputs{}
	for _, name := range strings.Fields("a b c d e f g h i j") {
		in.Runs = append(in.Runs, &Run{Name: name})
	}
	_, err := in.Select("z")
	if err == nil || !strings.HasSuffix(err.Error(), `: its runs are "a", "b", "c", "d", "e", "f", "g", "h" and 2 more`) {
		t.Errorf("error %v, want the first 8 names and the count of the rest", err)
	}
}
