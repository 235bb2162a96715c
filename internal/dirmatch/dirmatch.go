// Package dirmatch lists the files of a directory whose names match a
// pattern. Unlike filepath.Glob(filepath.Join(dir, pattern)) it matches
// the names only, so a directory named like a pattern ("runs[1]", "a\b",
// "x*") is read as the directory it is.
package dirmatch

import (
	"os"
	"path/filepath"
)

// Files returns the paths of the files in dir (not its subdirectories)
// whose names match pattern (filepath.Match syntax), sorted by name. A
// malformed pattern is filepath.ErrBadPattern; a directory that cannot be
// read is os.ReadDir's error.
func Files(dir, pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if ok, _ := filepath.Match(pattern, e.Name()); ok && !e.IsDir() {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}
