// Package relpath keeps the file paths a written file holds relative to
// that file's own directory, so that the files it names are found from
// wherever it is read.
package relpath

import (
	"os"
	"path/filepath"
)

// From rewrites p, a path from the current directory, as a path from dir,
// so that a file written in dir names it from where it lies. An absolute
// p, or one that cannot be made relative to dir, is kept absolute.
func From(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return abs
	}
	return rel
}

// Resolve is p, read from a file in dir, as a path from the current
// directory: a relative p names a file from dir. A file written before
// paths were relative to it named them from the directory it was written
// in; such a p is kept when it finds a file there and dir/p finds none.
func Resolve(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	j := filepath.Join(dir, p)
	if _, err := os.Stat(j); err != nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return j
}
