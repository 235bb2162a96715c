package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Convert bounds token counts as Import does: an absurd count is named by
// the file, its line and column, and nothing is written.
func TestConvertRejectsAbsurdTokens(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("arrival_ns,prompt_tokens,output_tokens\n0,5,5\n1,20000000,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	_, err := Convert(t.Context(), in, out)
	want := "in.csv: line 3: prompt_tokens: want a token count of at most 10000000 (larger is absurd), got 20000000"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written (stat: %v)", out, err)
	}
}
