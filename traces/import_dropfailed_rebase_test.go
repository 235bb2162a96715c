package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// --drop-failed starts a servesim trace at its first row kept, as it does
// a public one: importing a BurstGPT file with it, or importing it first
// and then its servesim copy with it, gives the same arrivals.
func TestImportServesimDropFailedStartsAtFirstKept(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "burst.csv")
	os.WriteFile(src, []byte("Timestamp,Request tokens,Response tokens\n5,1,0\n10,3,4\n12,5,6\n"), 0o644)
	_, direct := importAll(t, src, FormatBurstGPT, ImportOptions{DropFailed: true})
	kept := filepath.Join(dir, "kept.csv")
	_, all := importAll(t, src, FormatBurstGPT, ImportOptions{})
	if _, err := WriteTrace(t.Context(), kept, &sliceReader{rows: all}); err != nil {
		t.Fatal(err)
	}
	_, again := importAll(t, kept, FormatServesim, ImportOptions{DropFailed: true})
	arrivals := func(rows []*Request) (a []int64) {
		for _, r := range rows {
			a = append(a, r.Arrival)
		}
		return a
	}
	d, g := arrivals(direct), arrivals(again)
	if len(d) != 2 || len(g) != 2 || d[0] != g[0] || d[1] != g[1] {
		t.Errorf("arrivals: burstgpt --drop-failed %v, its servesim copy --drop-failed %v: want the same", d, g)
	}
}
