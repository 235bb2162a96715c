package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/sim"
)

// modelSteps compares the steps a traced engine ran (each ENGINE_LOG:
// one "SSKV" line per ubatch) with a calibrated profile's step model, by
// kind (see stepKinds), and prints the sums and the median ratio.
func modelSteps(profilePath string, enginePaths []string) {
	p, err := calibrate.LoadProfile(profilePath)
	if err != nil {
		fail(err)
	}
	for _, path := range enginePaths {
		kinds, err := stepKinds(p.Step, path)
		if err != nil {
			fail(err)
		}
		fmt.Printf("%s\n  %-20s %6s %10s %10s %14s %16s\n", path, "steps", "n", "engine s", "model s", "engine÷model", "median of steps")
		for _, n := range slices.Sorted(maps.Keys(kinds)) {
			k := kinds[n]
			var se, sm float64
			ratios := make([]float64, len(k.engine))
			for i := range k.engine {
				se, sm = se+k.engine[i], sm+k.model[i]
				ratios[i] = k.engine[i] / k.model[i]
			}
			fmt.Printf("  %-20s %6d %10.3f %10.3f %14.2f %16.2f\n", n, len(k.engine), se, sm, se/sm, median(ratios))
		}
	}
}

// stepTimes are the engine's and the model's seconds for steps of one kind.
type stepTimes struct{ engine, model []float64 }

// stepKinds times each step of an engine log against step: the engine's
// time from the step to the next against the model's for the step's
// prompt tokens and their context, decoding sequences and their context,
// and attended cells. A llama_decode call of more than one ubatch (every
// one but its last full) is one step. Steps the engine followed by
// waiting (more than three times the model's time) are left out, and so
// are the steps of lines other output cut.
func stepKinds(step calibrate.StepCoefficients, path string) (map[string]*stepTimes, error) {
	ubs, err := readUbatches(path)
	if err != nil {
		return nil, err
	}
	kinds := map[string]*stepTimes{}
	for i := 0; i < len(ubs); {
		j, model, prefill, decode, cut := i, 0.0, 0, 0, false
		for ; j < len(ubs); j++ {
			u := ubs[j]
			cut = cut || u.cut()
			o := calibrate.Observation{PrefillTokens: float64(u.prefill), PrefillAttn: u.prefillAttn,
				DecodeSeqs: float64(u.decode), DecodeContext: u.decodeContext, Resident: float64(u.cells)}
			o.PrefillResident, o.DecodeResident = o.PrefillTokens*o.Resident, o.DecodeSeqs*o.Resident
			model += step.StepSeconds(o)
			prefill, decode = prefill+u.prefill, max(decode, u.decode)
			if u.tokens != sim.UBatch {
				break
			}
		}
		if j+1 >= len(ubs) {
			break
		}
		took := float64(ubs[j+1].t-ubs[i].t) / 1e6
		i = j + 1
		if cut || !(took > 0) || took > 3*model {
			continue
		}
		name := fmt.Sprintf("decode, %d seqs", decode)
		switch {
		case prefill > 0 && decode == 0:
			name = "prompt alone"
		case prefill > 0:
			name = fmt.Sprintf("prompt + %d decoding", decode)
		}
		k := kinds[name]
		if k == nil {
			k = &stepTimes{}
			kinds[name] = k
		}
		k.engine, k.model = append(k.engine, took), append(k.model, model)
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("%s: no traced steps", path)
	}
	return kinds, nil
}
