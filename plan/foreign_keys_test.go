package plan

import (
	"strings"
	"testing"
)

// A limit of another strategy is refused at its line, as an unknown key
// is: in a long plan the key may be far from [batch]'s strategy.
func TestLoadNamesTheLineOfAKeyOfAnotherStrategy(t *testing.T) {
	path := writePlan(t, strings.Replace(valid, "chunked_prefill = true", "chunked_prefill = true\nbatch_size = 8", 1))
	want := path + `: line 13: batch.batch_size: does not apply to strategy "continuous"`
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// So is a split_on_prompt without the split it would change.
func TestLoadNamesTheLineOfASplitOnPromptWithoutASplit(t *testing.T) {
	path := writePlan(t, valid+"\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\nsplit_on_prompt = true\n")
	want := path + ": line 29: cluster.split_on_prompt: needs cluster.split_tokens and cluster.long_replicas"
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// A split key without its partner is refused at the line of the one the
// plan gives: the missing one has no line, and a long plan may hold
// [cluster] far from where the reader looks.
func TestLoadNamesTheLineOfASplitKeyWithoutItsPartner(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"split_tokens = 2048", ": line 29: cluster.split_tokens: missing required key cluster.long_replicas"},
		{"long_replicas = 1", ": line 29: cluster.long_replicas: missing required key cluster.split_tokens"},
	} {
		path := writePlan(t, valid+"\n[cluster]\nreplicas = 2\nrouter = \"round_robin\"\n"+c.key+"\n")
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%s: err = %v, want %s%s", c.key, err, path, c.want)
		}
	}
}
