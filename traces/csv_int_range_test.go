package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A CSV number in digits too many for its column's type is an integer
// still: it is refused as out of range, with the range, not as "want an
// integer".
func TestCSVIntegerPastItsTypeSaysOutOfRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	body := "id,arrival_ns,prompt_tokens,output_tokens\na,1,99999999999,1\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadAll(path)
	want := `line 2: column prompt_tokens: "99999999999" is out of range: want an integer in [-2147483648, 2147483647]`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReadAll = %v; want %q", err, want)
	}
}
