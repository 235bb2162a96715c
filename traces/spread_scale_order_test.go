package traces

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
	"time"
)

// Spreading after a scale spreads over the scaled clock: the same spread
// before the scale is stretched with it. The two make other arrivals, so
// their metadata must tell them apart, as a slice's does.
func TestSpreadAfterScaleIsAnotherWorkload(t *testing.T) {
	s := int64(time.Second)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	if err := WriteAll(src, Meta{Source: "azure:in.csv", Checksums: map[string]string{"in.csv": "sha256:ab12"}}, rowsAt(0, 0, 10*s)); err != nil {
		t.Fatal(err)
	}
	// importSpread spreads path by 1 s; scaleTo scales path by 2 into out.
	importSpread := func(path string) Reader {
		r, err := Import(path, FormatServesim, ImportOptions{Spread: s})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	scaleTo := func(r Reader, out string) {
		sc, err := Scale(r, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteTrace(context.Background(), out, sc); err != nil {
			t.Fatal(err)
		}
	}
	spreadFirst := filepath.Join(dir, "spread_scaled.csv")
	scaleTo(importSpread(src), spreadFirst)
	scaled := filepath.Join(dir, "scaled.csv")
	r, err := Import(src, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scaleTo(r, scaled)

	a, err := Import(spreadFirst, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := importSpread(scaled)
	defer b.Close()
	ma, mb := a.Meta(), b.Meta()
	ra, rb := drain(t, a), drain(t, b)
	if ra[1].Arrival == rb[1].Arrival {
		t.Fatalf("second row at %v either way: the orders should differ", time.Duration(ra[1].Arrival))
	}
	if wa, wb := Workload(ma), Workload(mb); maps.Equal(wa, wb) {
		t.Errorf("spread then scaled and scaled then spread: both Workload %v, want them told apart", wa)
	}
}
