package report

import (
	"os"
	"testing"

	"github.com/servesim/servesim/traces"
	"github.com/servesim/servesim/verify"
)

func TestProbeBuild(t *testing.T) {
	for _, p := range []string{"testdata/summary.json", "testdata/summary-cluster.json", "testdata/summary-oom.json"} {
		in, err := Load(t.Context(), traces.SLO{}, p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Build("t", in)
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, s := range d.Sections {
			for _, blk := range s.Blocks {
				if tb, ok := blk.(*Table); ok {
					t.Logf("%s %q", p, tb.Header)
					for _, r := range tb.Rows {
						t.Logf("   %q", r)
					}
				}
				if tx, ok := blk.(*Text); ok {
					t.Logf("%s TEXT %s", p, tx.Text)
				}
			}
		}
		_ = b
		_ = os.Stdout
	}
}

func TestProbeVerify(t *testing.T) {
	for _, p := range []string{"../verify/testdata/verify.json", "../verify/testdata/verify-unmeasured.json"} {
		res, err := verify.LoadResult(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := VerificationSection{Result: res}.Blocks(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, blk := range blocks {
			switch b := blk.(type) {
			case *Table:
				for _, r := range b.Rows {
					t.Logf("   %q", r)
				}
			case *Text:
				t.Logf("TEXT %s", b.Text)
			case *Figure:
				t.Logf("FIG %s: %s", b.Name, b.Caption)
			}
		}
	}
}
