package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// A request that ends before its max_tokens with finish_reason "length"
// hit a limit of the engine's (its context, or a server-side cap on output
// tokens), not EOS: ignore_eos cannot lift it, so the warning neither
// calls it EOS nor says that the engine ignored --ignore-eos.
func TestWarnRunsTellsALengthStopFromEOS(t *testing.T) {
	mk := func(id, finish string, got int32) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens = id, 64, 32
		r.ActualSend, r.FirstToken, r.LastToken, r.HTTPStatus = 0, 1e6, 2e6, 200
		r.UsagePrompt, r.UsageOutput, r.FinishReason = 64, got, finish
		return r
	}
	rows := []*traces.Request{mk("decode-c2-p64-r1/0", "length", 12), mk("decode-c2-p64-r1/1", "length", 12), mk("decode-c2-p64-r1/2", "length", 32)}
	runs := []*calibrate.RunResult{{Spec: calibrate.RunSpec{Name: "decode-c2-p64-r1", Kind: calibrate.KindDecode}, Rows: rows, Summary: calibrate.Summarize(rows)}}
	ignoreEOS := true
	var b bytes.Buffer
	warnRuns(&b, runs, &ignoreEOS)
	log := b.String()
	if strings.Contains(log, "EOS before") || strings.Contains(log, "did not heed") {
		t.Errorf("outputs cut at an engine limit taken for EOS stops:\n%s", log)
	}
	if !strings.Contains(log, "run decode-c2-p64-r1: 2 of 3 requests") || !strings.Contains(log, `finish_reason "length"`) {
		t.Errorf("warning does not name the run's 2 of 3 requests cut at a length limit:\n%s", log)
	}
}
