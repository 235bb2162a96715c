package main

import (
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// A refit's --device and its traces' devices compare as the catalog reads
// them, as simulate checks a profile's device: "H100-SXM-80G" given for
// traces measured with --device h100-sxm-80g is the same device.
func TestRefitInfoDeviceReadAsTheCatalog(t *testing.T) {
	run := func(path, device string) *calibrate.RunResult {
		return &calibrate.RunResult{Meta: traces.Meta{Device: device}, Trace: &calibrate.TraceRef{Path: path}}
	}
	runs := []*calibrate.RunResult{run("a.parquet", "h100-sxm-80g"), run("b.parquet", "H100-SXM-80G")}
	if _, err := refitInfo(calibrate.EngineInfo{Device: "H100-SXM-80G"}, runs); err != nil {
		t.Errorf("one device in two spellings: %v", err)
	}
	if _, err := refitInfo(calibrate.EngineInfo{Device: "A100-SXM-80G"}, runs); err == nil {
		t.Error("another device: no error")
	}
}
