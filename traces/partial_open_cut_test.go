package traces

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Open reads a partial stream as any .arrows file, which a last message
// cut short fails: the error says so and names the conversion that keeps
// the whole rows, as Import's refusal does.
func TestOpenPartialCutShortNamesTheConversion(t *testing.T) {
	dir := t.TempDir()
	two := streamOf(t, filepath.Join(dir, "two.arrows"), "a", "b")
	three := streamOf(t, filepath.Join(dir, "three.arrows"), "a", "b", "c")
	boundary, end := len(two)-8, len(three)-8
	for _, n := range []int{boundary + 4, (boundary + end) / 2, end - 1} {
		path := filepath.Join(dir, "run.parquet"+PartialSuffix)
		if err := os.WriteFile(path, three[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, rows, err := ReadAll(path)
		if err == nil {
			t.Errorf("cut at %d: read %d rows, no error", n, len(rows))
			continue
		}
		if !errors.Is(err, ErrCutShort) || !strings.Contains(err.Error(), "trace convert "+path) {
			t.Errorf("cut at %d: err = %v; want ErrCutShort naming trace convert %s", n, err, path)
		}
	}
}
