package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token count in digits too many for int64 is a non-negative integer
// still: it is refused as past the bound, not as a malformed count.
func TestImportCountPastInt64IsAboveTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	body := "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,99999999999999999999999,5\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatVidur, ImportOptions{})
	for err == nil && r.Next() {
	}
	if err == nil {
		err = r.Err()
	}
	want := `big.csv:2:5 (num_prefill_tokens): want a token count of at most 10000000 (larger is absurd), got "99999999999999999999999"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v; want %q", err, want)
	}
}
