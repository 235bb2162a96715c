package sweep

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// A ranked row whose scale is not a finite number cannot be replayed:
// writing it as a candidate fails naming the row, where encoding/json's
// error named no row.
func TestCandidateWithInfiniteScaleIsNamed(t *testing.T) {
	r := rankedRow()
	r.Index, r.Label, r.Scale = 4, "fixed-8", math.Inf(1)
	res := &Results{Rows: []Row{r}}
	path := filepath.Join(t.TempDir(), "candidates.json")
	err := WriteCandidates(path, res, 1)
	if err == nil || !strings.Contains(err.Error(), `index 4 ("fixed-8")`) || !strings.Contains(err.Error(), "scale") {
		t.Fatalf("err = %v; want one naming index 4 (\"fixed-8\") and its scale", err)
	}
}
