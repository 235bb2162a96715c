package proxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A killed session leaves the staging stream and its writer's hidden
// temporary file, hard links to one file: deleting only the staging
// stream frees no space, so the refusal names the hidden one too.
func TestStaleStagingNamesHiddenLink(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.parquet")
	stale := stagingPath(out)
	if err := os.WriteFile(stale, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(filepath.Dir(out), "."+filepath.Base(stale)+".tmp123")
	if err := os.Link(stale, hidden); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	// Another temporary file of that name, not linked: not this file's.
	other := filepath.Join(filepath.Dir(out), "."+filepath.Base(stale)+".tmp456")
	os.WriteFile(other, []byte("other"), 0o644)
	err := CheckStaging(out)
	if err == nil || !strings.Contains(err.Error(), stale) || !strings.Contains(err.Error(), hidden) || strings.Contains(err.Error(), other) {
		t.Errorf("err %v: want one naming %s and its hidden link %s, not %s", err, stale, hidden, other)
	}
	os.Remove(hidden)
	if err := CheckStaging(out); err == nil || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("err %v: want one naming %s alone once it has no hidden link", err, stale)
	}
}
