package traces

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Import's options apply to servesim's own files as to the public formats:
// --drop-failed and --spread must not be accepted and then ignored.
func TestImportServesimAppliesDropFailedAndSpread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens,source_failed\n"+
		"0,0,0,true\n0,2,2,false\n0,3,3,false\n3000000000,4,4,false\n"), 0o644)
	m, rows := importAll(t, path, FormatAuto, ImportOptions{DropFailed: true, Spread: 3e9})
	var got [][2]int64
	for _, r := range rows {
		got = append(got, [2]int64{r.Arrival, int64(r.PromptTokens)})
	}
	want := [][2]int64{{0, 2}, {1.5e9, 3}, {3e9, 4}}
	if len(got) != len(want) {
		t.Fatalf("rows (arrival, prompt) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rows (arrival, prompt) = %v, want %v", got, want)
			break
		}
	}
	if m.Extra["spread_ns"] != "3000000000" {
		t.Errorf("meta spread_ns = %q, want 3000000000", m.Extra["spread_ns"])
	}
}

// Arrivals count from the first request the import keeps: a failed row
// that --drop-failed removes does not start the trace.
func TestImportDropFailedFirstRowStartsAtZero(t *testing.T) {
	in := "Timestamp,Request tokens,Response tokens\n5,0,0\n10,3,4\n12,5,6\n"
	rows := importString(t, FormatBurstGPT, in, ImportOptions{DropFailed: true})
	if len(rows) != 2 || rows[0].Arrival != 0 || rows[1].Arrival != 2e9 {
		var got []int64
		for _, r := range rows {
			got = append(got, r.Arrival)
		}
		t.Errorf("arrivals = %v, want [0 2000000000]", got)
	}
	// Order is still checked against the dropped rows.
	in = "Timestamp,Request tokens,Response tokens\n5,1,1\n9,0,0\n7,3,4\n"
	if _, err := importStringErr(FormatBurstGPT, in, ImportOptions{Name: "in.csv", DropFailed: true}); err == nil {
		t.Error("a row before a dropped one: no error, want arrival goes back in time")
	}
}

// Import records the input's sha256 for servesim files as for the public
// formats.
func TestImportServesimRecordsChecksum(t *testing.T) {
	path := filepath.Join(t.TempDir(), "own.csv")
	body := []byte("# servesim.source=synthetic\narrival_ns,prompt_tokens,output_tokens\n0,2,2\n")
	os.WriteFile(path, body, 0o644)
	m, rows := importAll(t, path, FormatAuto, ImportOptions{})
	want := "sha256:" + hex.EncodeToString(func() []byte { s := sha256.Sum256(body); return s[:] }())
	if len(rows) != 1 || m.Checksums["own.csv"] != want {
		t.Errorf("checksums = %v, want own.csv: %s", m.Checksums, want)
	}
	if m.Source != "synthetic" {
		t.Errorf("source = %q, want the file's own (synthetic)", m.Source)
	}
}

// Dropping the rows a source marks as failed changes the trace (fewer
// rows, and the clock may start later), so the metadata says it was done,
// for public formats and servesim files alike.
func TestImportDropFailedIsInMeta(t *testing.T) {
	r, err := NewImporter(FormatBurstGPT, strings.NewReader("Timestamp,Request tokens,Response tokens\n5,0,0\n10,3,4\n"), ImportOptions{DropFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Meta().Extra["drop_failed"]; v != "true" {
		t.Errorf("burstgpt: meta x.drop_failed = %q, want true (meta %+v)", v, r.Meta())
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens,source_failed\n0,0,0,true\n1,2,2,false\n"), 0o644)
	m, _ := importAll(t, path, FormatAuto, ImportOptions{DropFailed: true})
	if v := m.Extra["drop_failed"]; v != "true" {
		t.Errorf("servesim: meta x.drop_failed = %q, want true (meta %+v)", v, m)
	}
	if m, _ := importAll(t, path, FormatAuto, ImportOptions{}); m.Extra["drop_failed"] != "" {
		t.Errorf("without DropFailed: meta x.drop_failed = %q, want none", m.Extra["drop_failed"])
	}
}

// Spreading a servesim trace that was spread before keeps the earlier
// quantum in the metadata, as slice and scale keep theirs: the arrivals
// still hold the first spread, whatever the second does.
func TestImportSpreadKeepsEarlierSpread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(path, []byte("# servesim.x.spread_ns=3000000000\narrival_ns,prompt_tokens,output_tokens\n0,2,2\n1000000000,2,2\n"), 0o644)
	m, _ := importAll(t, path, FormatAuto, ImportOptions{Spread: 1e9})
	if v, want := m.Extra["spread_ns"], "3000000000; 1000000000"; v != want {
		t.Errorf("meta x.spread_ns = %q, want %q", v, want)
	}
}
