// Package testfs holds the file-system checks that tests of several
// packages share.
package testfs

import (
	"os"
	"testing"
)

// Names lists the names in dir, sorted, failing t when dir cannot be read:
// tests of atomic outputs check that nothing but the finished files is left.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
