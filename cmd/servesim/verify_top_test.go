package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/sweep"
	"github.com/servesim/servesim/verify"
)

// --top N verifies the N best candidates, by rank, whatever the order of
// candidates.json (as it does with a sweep.parquet): a file listed worst
// first does not get its worst verified.
func TestVerifyTopTakesTheBestRanks(t *testing.T) {
	dir := t.TempDir()
	url, _ := countingServer(t)
	_, tr := oneCandidate(t, dir)
	var cf sweep.CandidateFile
	for _, rank := range []int64{3, 1, 2} {
		cf.Candidates = append(cf.Candidates, sweep.Candidate{Rank: rank, Index: rank, Label: "r" + string(rune('0'+rank)), Plan: tinyPlan, RateScale: 1})
	}
	data, _ := json.Marshal(cf)
	cands := writeFile(t, dir, "candidates.json", string(data))
	out := filepath.Join(dir, "out")
	text, _, runErr := runCode(t, "verify", "--candidates", cands, "--top", "2", "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", out)
	res, err := verify.LoadResult(filepath.Join(out, "verify.json"))
	if err != nil {
		t.Fatalf("%v; verify: %v\n%s", err, runErr, text)
	}
	var ranks []int64
	for _, c := range res.Candidates {
		ranks = append(ranks, c.Rank)
	}
	if len(ranks) != 2 || ranks[0] != 1 || ranks[1] != 2 {
		t.Errorf("--top 2 verified ranks %v, want [1 2]", ranks)
	}
}

// verify's summary line counts one candidate, and one request, in the
// singular: "1 candidate", not "1 candidates".
func TestVerifySummaryCountsOneCandidate(t *testing.T) {
	dir := t.TempDir()
	url, _ := countingServer(t)
	cands, _ := oneCandidate(t, dir)
	tr := writeFile(t, dir, "one.csv", "arrival_ns,prompt_tokens,output_tokens\n0,100,20\n")
	text, _, err := runCode(t, "verify", "--candidates", cands, "--trace", tr, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--tokens-per-byte", "1", "--out", filepath.Join(dir, "out"))
	if !strings.Contains(text, "verify: 1 candidate, 1 request each (") {
		t.Errorf("summary of one candidate and request (err %v):\n%s", err, text)
	}
}
