package traces

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Dropping failed rows before a spread leaves them out of the groups
// spread; dropping them after it leaves the gaps they were spread into.
// The two make other arrivals, so their metadata must tell them apart.
func TestDropFailedAfterSpreadIsAnotherWorkload(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "burst.csv")
	os.WriteFile(src, []byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"+
		"0,ChatGPT,1,0,1,Conversation log\n0,ChatGPT,2,2,4,Conversation log\n0,ChatGPT,3,3,6,Conversation log\n10,ChatGPT,4,4,8,Conversation log\n"), 0o644)
	spread := int64(3 * time.Second)
	at := func(path string, opt ImportOptions) (Meta, []*Request) {
		r, err := Import(path, FormatAuto, opt)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Meta(), drain(t, r)
	}
	ma, ra := at(src, ImportOptions{DropFailed: true, Spread: spread})

	spreadFile := filepath.Join(dir, "spread.csv")
	r, err := Import(src, FormatAuto, ImportOptions{Spread: spread})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTrace(context.Background(), spreadFile, r); err != nil {
		t.Fatal(err)
	}
	mb, rb := at(spreadFile, ImportOptions{DropFailed: true})

	if len(ra) != len(rb) || ra[1].Arrival == rb[1].Arrival {
		t.Fatalf("rows %d and %d, second at %v either way: the orders should differ", len(ra), len(rb), time.Duration(ra[1].Arrival))
	}
	if wa, wb := Workload(ma), Workload(mb); maps.Equal(wa, wb) {
		t.Errorf("dropped then spread and spread then dropped: both Workload %v, want them told apart", wa)
	}
	// A slice after either still says the failed rows were dropped.
	for _, m := range []Meta{ma, mb} {
		s := Slice(&sliceReader{meta: m}, 0, 0, 1)
		if got := s.Meta().Extra["slice"]; got != "from_ns=0 head=1 after_spread_ns="+m.Extra["spread_ns"]+" after_drop_failed" {
			t.Errorf("slice of %v: %q, want it after the spread and the dropped failures", m.Extra, got)
		}
	}
}
