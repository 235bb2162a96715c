package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/model"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
)

// printOne is the per-plan lines of one default plan over summary s.
func printOne(t *testing.T, s *sim.Summary) string {
	t.Helper()
	p, err := plan.Load(filepath.Join("defaults", "1-serial.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	printResults(&out, []*plan.Result{{Name: "p", Plan: p, Summary: s}})
	return out.String()
}

// A cache barely used is not unused, nor one short of full filled: the
// memory line gives its mean and peak as the report does.
func TestSimulateKVSharesNeverRoundToNoneOrAll(t *testing.T) {
	s := &sim.Summary{Makespan: 10, Completed: 1, Requests: 1}
	s.KV.TotalBlocks, s.KV.MeanUtil, s.KV.MaxUtil = 768036, 40.0/768036, 0.998
	if out, want := printOne(t, s), "768036 KV blocks, mean 0.0052% / max 99.8% used,"; !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}

// A run shorter than half a device-second used the device: the table
// and the hardware line give its device-seconds, not 0.
func TestSimulateShortRunKeepsItsDeviceSeconds(t *testing.T) {
	p, err := plan.Load(filepath.Join("defaults", "1-serial.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s := &sim.Summary{Makespan: 0.3, Completed: 1, Requests: 1, DeviceSeconds: 0.3}
	var out strings.Builder
	printResults(&out, []*plan.Result{{Name: "p", Plan: p, Summary: s, Cost: model.CostBreakdown{DeviceSeconds: 0.3}}})
	if want := "(0.3 device-s)"; !strings.Contains(out.String(), want) {
		t.Errorf("want %q in:\n%s", want, out.String())
	}
	lines := strings.Split(out.String(), "\n")
	col, row := strings.Index(lines[0], "device-s"), []rune(lines[1]) // the table pads by runes
	if col < 0 || len(row) < col || !strings.HasPrefix(string(row[col:]), "0.3 ") {
		t.Errorf("want device-s 0.3 in the table:\n%s", out.String())
	}
}
