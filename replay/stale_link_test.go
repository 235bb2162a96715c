package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After a kill -9, OUT.partial.arrows and its writer's hidden temporary
// file are hard links to one file: the refusal to start beside it names
// both, as deleting the visible one alone frees no space.
func TestStalePartialNamesHiddenLink(t *testing.T) {
	partial := PartialPath(filepath.Join(t.TempDir(), "out.parquet"))
	if err := os.WriteFile(partial, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(filepath.Dir(partial), "."+filepath.Base(partial)+".tmp77")
	if err := os.Link(partial, hidden); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if msg := stalePartial(partial); !strings.Contains(msg, partial) || !strings.Contains(msg, hidden) {
		t.Errorf("%q: want it to name %s and its hidden link %s", msg, partial, hidden)
	}
}
