package verify

import (
	"strings"
	"testing"
)

// A misspelt knob in a branch the zero Knobs do not take (chunked prefill
// off, no prefix caching) must be refused up front, not fail every
// candidate that takes the branch once the runs have begun.
func TestParseTemplateUnknownFieldInBranch(t *testing.T) {
	for _, text := range []string{
		"vllm serve {{if .ChunkedPrefill}}--max-num-batched-tokens {{.MaxNumBatchedToken}}{{end}}",
		"vllm serve {{if .PrefixCaching}}x{{else if .ChunkedPrefill}}{{$.MaxSeqs}}{{end}}",
		"vllm serve {{with .Label}}{{end}}{{range $i := .MaxNumSeqs}}{{.Prot}}{{end}}",
		`{{define "tp"}}{{.TensorParalel}}{{end}}vllm serve {{if .ChunkedPrefill}}{{template "tp" .}}{{end}}`,
	} {
		_, err := ParseTemplate("engine-cmd", text)
		if err == nil {
			t.Errorf("%q: unknown field accepted", text)
			continue
		}
		if !strings.Contains(err.Error(), "engine-cmd") || !strings.Contains(err.Error(), "unknown field") {
			t.Errorf("%q: error %q does not name the template and field", text, err)
		}
	}
	for _, text := range []string{
		"vllm serve {{if .ChunkedPrefill}}--enable-chunked-prefill --max-num-batched-tokens {{.MaxNumBatchedTokens}}{{end}} --port {{$.Port}}",
		"{{with .Label}}{{.}}{{end}} {{$n := .MaxNumSeqs}}{{$n}}",
	} {
		if _, err := ParseTemplate("engine-cmd", text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
	// A knob under with or range is not dot's field there: say how to reach it.
	_, err := ParseTemplate("engine-cmd", "{{with .Label}}{{.Port}}{{end}}")
	if err == nil || !strings.Contains(err.Error(), "$.Port") {
		t.Errorf("knob under with: %v, want an error that points to $.Port", err)
	}
}

// A call that fails whatever the knobs, in a branch the zero Knobs skip,
// must be refused up front too: an undefined template, a function given
// a knob of the wrong type or the wrong number of arguments.
func TestParseTemplateBadCallInBranch(t *testing.T) {
	for text, want := range map[string]string{
		`vllm serve {{if .PrefixCaching}}{{template "pc"}}{{end}}`:                      `template "pc" is not defined`,
		`{{define "a"}}{{if .ChunkedPrefill}}{{template "b" .}}{{end}}{{end}}x`:         `template "b" is not defined`,
		"vllm serve {{if .ChunkedPrefill}}--chunks {{len .MaxNumBatchedTokens}}{{end}}": "len of type int",
		`vllm serve {{if eq .Strategy "fixed"}}{{call .Label}}{{end}}`:                  "non-function .Label",
		"vllm serve {{if .BatchSize}}--batch {{printf}}{{end}}":                         "wrong number of args for printf",
		"vllm serve {{with .MaxNumSeqs}}--seqs {{index . 0}}{{end}}":                    "can't index item of type int",
	} {
		_, err := ParseTemplate("engine-cmd", text)
		if err == nil || !strings.Contains(err.Error(), "engine-cmd template") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming the template and saying %s", text, err, want)
		}
	}
	for _, text := range []string{
		`{{define "tp"}}-tp {{.TensorParallel}}{{end}}vllm serve {{if gt .TensorParallel 1}}{{template "tp" .}}{{end}}`,
		`{{if eq .Strategy "fixed"}}--max-num-seqs {{.BatchSize}}{{else}}--max-num-seqs {{.MaxNumSeqs}}{{end}}`,
		"{{if .Port}}--port {{slice .Port 0}}{{end}} {{range $i := .TensorParallel}}--gpu {{$i}} {{end}}",
	} {
		if _, err := ParseTemplate("engine-cmd", text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}
