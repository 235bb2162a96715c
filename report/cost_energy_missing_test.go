package report

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/traces"
)

// hardwareOnlyRun is handRun without a power model: its energy was not
// measured, so its estimated cost is hardware amortization alone.
func hardwareOnlyRun(name string) *Run {
	res := handRun(name, 0.2).Result
	res.Summary.EnergyJoules = traces.Missing
	res.Cost = model.Prices{DevicePerHour: 3.6, EnergyPerKWh: 0.1}.Cost(model.Usage{Devices: 1, WallSeconds: 100,
		EnergyJoules: traces.Missing, InputTokens: 1e4, OutputTokens: 1e4})
	return resultRun(res)
}

// A run whose energy was not measured has totals and a bar of hardware
// alone, while the table's caption and the figure's describe hardware
// plus energy: its cost cells are marked, a note under the table names
// it, and the figure's caption does too. Runs that all measured energy
// get neither.
func TestCostBreakdownNamesHardwareOnlyRuns(t *testing.T) {
	d, err := Build("t", &Inputs{Runs: []*Run{handRun("measured", 0.1), hardwareOnlyRun("unpowered")}})
	if err != nil {
		t.Fatal(err)
	}
	blocks := costBlocks(t, d)
	var table *Table
	var note string
	for i, b := range blocks {
		if tb, ok := b.(*Table); ok && table == nil {
			table = tb
			if i+1 < len(blocks) {
				if tx, ok := blocks[i+1].(*Text); ok {
					note = tx.Text
				}
			}
		}
	}
	if table == nil {
		t.Fatal("no cost table")
	}
	for _, row := range table.Rows {
		marked := strings.HasSuffix(row[3], hardwareOnlyMark) && strings.HasSuffix(row[4], hardwareOnlyMark)
		if marked != (row[0] == "unpowered") {
			t.Errorf("row %s: total %q, $/1M out %q: want the hardware-only mark on the unpowered run's alone", row[0], row[3], row[4])
		}
	}
	if !strings.Contains(note, "unpowered") || strings.Contains(note, "measured,") || !strings.Contains(note, "hardware") {
		t.Errorf("note under the table %q: want it to name the unpowered run as hardware only", note)
	}
	var caption string
	for _, b := range blocks {
		if f, ok := b.(*Figure); ok && f.Name == "cost-runs" {
			caption = f.Caption
		}
	}
	if !strings.Contains(caption, "unpowered") {
		t.Errorf("figure caption %q: want it to name the unpowered run's bar as hardware only", caption)
	}

	d, err = Build("t", &Inputs{Runs: []*Run{handRun("a", 0.1), handRun("b", 0.2)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range costBlocks(t, d) {
		if tx, ok := b.(*Text); ok && strings.Contains(tx.Text, "not measured") {
			t.Errorf("runs that measured energy got a note: %q", tx.Text)
		}
	}
}

func costBlocks(t *testing.T, d *Doc) []Block {
	t.Helper()
	for _, s := range d.Sections {
		if s.Title == "Cost breakdown" {
			return s.Blocks
		}
	}
	t.Fatal("no cost breakdown section")
	return nil
}
