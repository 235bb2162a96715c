package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
)

// cappedPastRows are three ranked configs, the third capped at the
// search's limit: its cost there is an upper bound.
func cappedPastRows() []sweep.Row {
	nan := math.NaN()
	row := func(rank int64, label string, cost float64) sweep.Row {
		return sweep.Row{Index: rank - 1, Label: label, Outcome: sweep.OutcomeOK, SLOMet: true, Rank: rank, RateScale: nan, Scale: 4,
			USDPerMOutEst: cost, DeviceCount: 1, Replicas: 1, ReqPerSec: 1, GoodputOutTokPerSec: 1, TTFTP99: 1, TPOTP99: 1, E2EP99: 1,
			USDPerMOutBilled: nan, TailPenalty: nan, KneeScale: nan}
	}
	rows := []sweep.Row{row(1, "cheap", 1), row(2, "mid", 2), row(3, "capped", 3)}
	rows[2].Note = "capacity ≥ search.max_scale 4"
	return rows
}

// A capped config ranked past those shown or handed to verify may cost
// less than them at its true capacity: the table and --top must say so,
// and say nothing where every capped config made the cut.
func TestSweepNamesCappedConfigsRankedPastTheCut(t *testing.T) {
	rows := cappedPastRows()
	var out strings.Builder
	printSweep(&out, &sweep.Results{Rows: rows}, 2)
	if !strings.Contains(out.String(), "capped #3 (capped)") || !strings.Contains(out.String(), "search.max_scale") {
		t.Errorf("the table of the 2 cheapest does not name the capped #3 left out as possibly cheaper:\n%s", out.String())
	}
	out.Reset()
	printSweep(&out, &sweep.Results{Rows: rows}, 3)
	if strings.Contains(out.String(), "ranked past") {
		t.Errorf("every config shown, yet the table names one left out:\n%s", out.String())
	}

	dir := t.TempDir()
	var log strings.Builder
	if err := writeSweep(&log, filepath.Join(dir, "sweep.parquet"), filepath.Join(dir, "candidates.json"), &sweep.Results{Rows: rows}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "candidates.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "capped #3 (capped)") || !strings.Contains(log.String(), "candidates.json") {
		t.Errorf("--top 2 leaves out the capped #3 without saying so: %q", log.String())
	}
}

// The note on what candidates.json holds is printed once the file is in
// place: a sweep whose candidates could not be written does not describe
// them.
func TestSweepCappedNoteWaitsForTheCandidatesFile(t *testing.T) {
	dir := t.TempDir()
	candidates := filepath.Join(dir, "candidates.json")
	// a non-empty directory in the way: the rename into place fails
	if err := os.MkdirAll(filepath.Join(candidates, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	err := writeSweep(&log, filepath.Join(dir, "sweep.parquet"), candidates, &sweep.Results{Rows: cappedPastRows()}, 2)
	if err == nil {
		t.Fatal("candidates.json is a directory, yet the sweep was written")
	}
	if log.Len() != 0 {
		t.Errorf("candidates.json not written (%v), yet the log describes it: %q", err, log.String())
	}
}
