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
