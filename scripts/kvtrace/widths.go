package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// widths prints how many steps a traced engine ran (ENGINE_LOG) and a
// simulation of the same requests ran (DECISIONS, `servesim simulate
// --decisions`): the steps that compute prompt tokens, and the pure decode
// steps by how many sequences they decode. A one-sequence step where the
// engine ran two sequences' worth says that a slot stood empty; that is
// how the engine's admission shows (README.md, calibration, Admission).
func widths(enginePath, decisionsPath string) {
	eng, engPrefill := map[int]int{}, 0
	ubs, err := readUbatches(enginePath)
	if err != nil {
		fail(err)
	}
	for _, u := range ubs {
		if u.pureDecode() {
			eng[u.decode]++
		} else {
			engPrefill++
		}
	}
	sim, simPrefill, err := readDecisionWidths(decisionsPath)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%-24s %8s %8s\n", "steps", "engine", "sim")
	fmt.Printf("%-24s %8d %8d\n", "with prompt tokens", engPrefill, simPrefill)
	ws := maps.Clone(eng)
	maps.Copy(ws, sim)
	for _, w := range slices.Sorted(maps.Keys(ws)) {
		fmt.Printf("%-24s %8d %8d\n", fmt.Sprintf("decoding %d sequences", w), eng[w], sim[w])
	}
}

// readDecisionWidths counts a decision log's steps: those with prompt
// tokens, and the pure decode steps by how many sequences they decode.
func readDecisionWidths(path string) (decode map[int]int, prefill int, err error) {
	decode = map[int]int{}
	err = lines(path, func(l string) error {
		var d struct {
			Steps         int     `json:"steps"`
			PrefillTokens float64 `json:"prefill_tokens"`
			DecodeSeqs    int     `json:"decode_seqs"`
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			return err
		}
		switch {
		case d.PrefillTokens > 0:
			prefill += d.Steps
		case d.DecodeSeqs > 0:
			decode[d.DecodeSeqs] += d.Steps
		}
		return nil
	})
	return decode, prefill, err
}
