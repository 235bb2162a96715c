package replaytest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckNoSecret fails t if text, or any file under dir ("" for none),
// holds one of secrets; what names text in the failure. It returns the
// files it read, so a caller can tell that the run wrote what it scanned.
func CheckNoSecret(t testing.TB, what, text, dir string, secrets ...string) (files int) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows %q:\n%s", what, s, text)
		}
	}
	if dir == "" {
		return 0
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, _ := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s: %s holds %q", what, p, s)
			}
		}
		return nil
	})
	return files
}
