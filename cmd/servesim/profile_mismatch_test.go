package main

import (
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/plan"
)

// A plan's model named as the catalog reads it (any case, surrounding
// spaces) is the profile's model: no warning of a mismatch.
func TestProfileMismatchReadsNamesAsTheCatalog(t *testing.T) {
	p := &calibrate.Profile{Model: "meta-llama/Llama-3.1-8B-Instruct"}
	for _, c := range []struct {
		name string
		want int
	}{{"Llama-3.1-8B", 0}, {" llama-3.1-8b ", 0}, {"Qwen2.5-7B", 1}} {
		pl := &plan.Plan{Model: plan.Model{Name: c.name}}
		if got := profileMismatch(p, pl); len(got) != c.want {
			t.Errorf("plan model %q: %q, want %d differences", c.name, got, c.want)
		}
	}
}

// A plan on one device, against a profile measured at tensor parallelism
// 2, is named in the singular.
func TestProfileMismatchOneDevice(t *testing.T) {
	p := &calibrate.Profile{TensorParallel: 2}
	pl := &plan.Plan{Device: plan.Device{Count: 1}}
	got := profileMismatch(p, pl)
	if want := "tensor parallelism 2, the plan 1 device"; len(got) != 1 || got[0] != want {
		t.Errorf("differences %q, want [%q]", got, want)
	}
}
