package report

import (
	"strings"
	"testing"
)

// A shard of more shards than configs holds none: the report says so, not
// "none of its 0 configs has a result ()".
func TestSweepWithoutConfigsSaysSo(t *testing.T) {
	blocks, err := ComparisonSection{}.Blocks(&Inputs{Sweeps: []*Sweep{{Name: "s", Path: "sweep-shard-7-of-8.parquet"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("%d blocks, want 1", len(blocks))
	}
	if text := blocks[0].(*Text).Text; strings.Contains(text, "()") || !strings.Contains(text, "holds no config") {
		t.Errorf("%q: want it said that the sweep holds no config", text)
	}
}
