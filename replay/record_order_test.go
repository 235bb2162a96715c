package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/traces"
)

// A trace whose arrivals go back in time stops the run at that row, as a
// bad row does: its recording would be written in input order, out of
// arrival order, and simulate, trace slice and trace stats would refuse
// to read it.
func TestRecordRefusesArrivalsOutOfOrder(t *testing.T) {
	srv := replaytest.New(replaytest.Options{Record: true})
	defer srv.Close()
	dir := t.TempDir()
	in := rows(3, 10*time.Millisecond, 30, 4)
	in[2].Arrival = 0 // before row 2's
	cfg := testConfig(srv)
	cfg.Trace = writeTrace(t, dir, "in.csv", in)
	cfg.Out = filepath.Join(dir, "out.parquet")
	_, err := Record(t.Context(), cfg, nil)
	if err == nil {
		r, ierr := traces.Import(cfg.Out, traces.FormatServesim, traces.ImportOptions{})
		if ierr == nil {
			_, ierr = traces.ComputeStats(r, traces.SLO{})
		}
		t.Fatalf("recorded; reading the recording back: %v", ierr)
	}
	// Row 3 is line 6, below two metadata lines and the header.
	if !strings.Contains(err.Error(), "in.csv: line 6: arrival_ns: arrival goes back in time") {
		t.Errorf("error %q: want it to name the file, row 3's line and what is wrong", err)
	}
	if _, err := os.Stat(cfg.Out); err == nil {
		t.Errorf("%s written", cfg.Out)
	}
	if n := len(srv.Requests()); n > 2 {
		t.Errorf("%d requests sent: want at most the 2 rows before the bad one", n)
	}
}
