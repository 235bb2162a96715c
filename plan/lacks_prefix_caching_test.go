package plan

import (
	"strings"
	"testing"
)

// LacksPrefixCaching names the plans whose only fault is a missing
// batch.prefix_caching (stored before it was required), so that adding
// the key is the fix it points to. A plan that fails for another reason
// too (a strategy that does not exist, an unknown key, another missing
// key) is not one: adding the key would not make it run.
func TestLacksPrefixCachingOnlyForThatFault(t *testing.T) {
	old := strings.Replace(valid, "prefix_caching = false\n", "", 1)
	if old == valid {
		t.Fatal("the fixture plan has no prefix_caching line")
	}
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"current plan", valid, false},
		{"stored before the key", old, true},
		{"unknown strategy", strings.Replace(old, `strategy = "continuous"`, `strategy = "nosuch"`, 1), false},
		{"unknown key too", old + "\n[extra]\nx = 1\n", false},
		{"another key missing", strings.Replace(old, "max_num_seqs = 256\n", "", 1), false},
		{"not TOML", "[batch\n", false},
	} {
		if got := LacksPrefixCaching([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: LacksPrefixCaching = %v, want %v", tc.name, got, tc.want)
		}
	}
}
