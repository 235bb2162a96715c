package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/traces"
)

// llama.cpp's server takes ignore_eos as vLLM and SGLang do: the hint after
// outputs that stopped at EOS names it among the engines that have it, and
// when the runs name such an engine, says that this one has it.
func TestWarnRunsEOSHintNamesLlamaCpp(t *testing.T) {
	mk := func(id string) *traces.Request {
		r := &traces.Request{}
		r.Reset()
		r.ID, r.PromptTokens, r.OutputTokens = id, 64, 32
		r.ActualSend, r.FirstToken, r.LastToken, r.HTTPStatus = 0, 1e6, 2e6, 200
		r.UsagePrompt, r.UsageOutput, r.FinishReason = 64, 12, "stop"
		return r
	}
	runsOf := func(engine string) []*calibrate.RunResult {
		rows := []*traces.Request{mk("decode-c2-p64-r1/0"), mk("decode-c2-p64-r1/1")}
		return []*calibrate.RunResult{{Spec: calibrate.RunSpec{Name: "decode-c2-p64-r1", Kind: calibrate.KindDecode},
			Meta: traces.Meta{Engine: engine}, Rows: rows, Summary: calibrate.Summarize(rows)}}
	}
	var b bytes.Buffer
	warnRuns(&b, runsOf(""), nil)
	if !strings.Contains(b.String(), "(vLLM, SGLang, llama.cpp's server)") {
		t.Errorf("hint without a named engine does not list llama.cpp's server:\n%s", b.String())
	}
	b.Reset()
	ignoreEOS := false
	warnRuns(&b, runsOf("llama-server b4500"), &ignoreEOS)
	if want := `--ignore-eos was not set: calibrate with it (engine "llama-server b4500" has ignore_eos)`; !strings.Contains(b.String(), want) {
		t.Errorf("hint for runs on llama.cpp's server:\n%s\nwant it to hold %q", b.String(), want)
	}
}
