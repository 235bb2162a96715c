package main

import (
	"strings"
	"testing"
)

// sweep merge names a shard argument as its usage line does, SHARD, as
// trace verbs name IN and OUT and compare names A and B.
func TestSweepMergeNamesShardArgument(t *testing.T) {
	dir := t.TempDir()
	missing := dir + "/missing.parquet"
	_, code, err := runCode(t, "sweep", "merge", dir+"/out.parquet", missing)
	want := "sweep merge: SHARD: " + missing
	if code != 2 || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("exit %d, err %v; want exit 2 and an error starting %q", code, err, want)
	}
}
