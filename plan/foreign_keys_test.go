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
