package verify

import (
	"io"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"
	"unicode"
)

// candidateKnobs are the knobs of candidates as verify runs them: one of
// each strategy, with chunked prefill and prefix caching on and off.
var candidateKnobs = []Knobs{
	{Rank: 1, Label: "continuous-s128-t4096", Strategy: "continuous", MaxNumSeqs: 128, MaxNumBatchedTokens: 4096,
		ChunkedPrefill: true, GPUMemoryUtilization: 0.9, MaxModelLen: 16384, BlockSize: 16, TensorParallel: 1,
		Device: "H100-SXM-80GB", MaxNewTokens: 256, Host: "127.0.0.1", Port: "8000"},
	{Rank: 2, Label: "continuous-s64-pc", Strategy: "continuous", MaxNumSeqs: 64, MaxNumBatchedTokens: 2048,
		PrefixCaching: true, GPUMemoryUtilization: 0.85, MaxModelLen: 8192, BlockSize: 32, TensorParallel: 2,
		Device: "A100-80GB", MaxNewTokens: 128, Host: "localhost", Port: "8001"},
	{Rank: 3, Label: "fixed-b8", Strategy: "fixed", BatchSize: 8, MaxWaitMS: 50, GPUMemoryUtilization: 0.9,
		MaxModelLen: 4096, BlockSize: 16, TensorParallel: 1, Device: "L4", MaxNewTokens: 64, Host: "::1", Port: "80"},
	{Rank: 4, Label: "token_budget-8192", Strategy: "token_budget", MaxTokenBudget: 8192, MaxWaitMS: 20,
		ChunkedPrefill: true, PrefixCaching: true, GPUMemoryUtilization: 0.95, MaxModelLen: 32768, BlockSize: 64,
		TensorParallel: 4, Device: "H200", MaxNewTokens: 512, Host: "engine.internal", Port: "443"},
	{Rank: 5, Label: "serial", Strategy: "serial", GPUMemoryUtilization: 0.5, MaxModelLen: 2048, BlockSize: 16,
		TensorParallel: 1, Device: "cpu", MaxNewTokens: 32, Host: "10.0.0.7", Port: "11434"},
}

// walkTemplate calls visit on every node of every template of text, and
// says whether text parses.
func walkTemplate(text string, visit func(n parse.Node)) bool {
	t, err := template.New("x").Parse(text)
	if err != nil {
		return false
	}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		visit(n)
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.TemplateNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.ChainNode:
			walk(n.Node)
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			walk(tt.Root)
		}
	}
	return true
}

// boundedTemplate reports whether executing text is sure to end soon: the
// fuzzer finds templates such as {{range 1e9}} or {{printf "%9999999d"}}
// that are slow however they are checked. It allows ranges only over a
// field or a variable, at most two, and then no template call, and no
// number or run of digits in a string longer than 4 digits.
func boundedTemplate(text string) bool {
	ranges, calls, ok := 0, 0, true
	walkTemplate(text, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.TemplateNode:
			calls++
		case *parse.NumberNode:
			if len(strings.TrimLeft(n.Text, "+-0")) > 4 {
				ok = false
			}
		case *parse.StringNode:
			digits := 0
			for _, r := range n.Text {
				if digits++; !unicode.IsDigit(r) {
					digits = 0
				}
				if digits > 4 {
					ok = false
				}
			}
		case *parse.RangeNode:
			ranges++
			if len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
				ok = false
				return
			}
			switch n.Pipe.Cmds[0].Args[0].(type) {
			case *parse.FieldNode, *parse.VariableNode:
			default:
				ok = false
			}
		}
	})
	return ok && ranges <= 2 && (ranges == 0 || calls == 0)
}

// comparesKnobs reports whether text calls a comparison (eq, lt, ...): a
// branch on one ({{if eq .MaxNumSeqs 128}}) is taken by the candidates of
// some values only, which ParseTemplate cannot foresee.
func comparesKnobs(text string) bool {
	found := false
	walkTemplate(text, func(n parse.Node) {
		if id, ok := n.(*parse.IdentifierNode); ok {
			switch id.Ident {
			case "eq", "ne", "lt", "le", "gt", "ge":
				found = true
			}
		}
	})
	return found
}

// dataError reports whether err is an index past the end of a knob's
// value ({{index .Device 9}}), which depends on the candidate, not on the
// template.
func dataError(err error) bool {
	return strings.Contains(err.Error(), "index out of range") || strings.Contains(err.Error(), "invalid slice index")
}

// FuzzParseTemplate: any --engine-cmd either fails with an error that
// names the template, or is a template that executes on the zero Knobs
// and, unless a branch compares knobs with values, on the knobs of
// candidates of every strategy, with chunked prefill and prefix caching
// on and off, as Render does for each candidate, failing at most for an
// index past the end of a knob's value: a template that would fail only
// once candidates run is refused up front. Crashers found are kept in
// testdata/fuzz/FuzzParseTemplate.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{
		"vllm serve m --max-num-seqs {{.MaxNumSeqs}} --port {{.Port}}",
		"vllm serve {{if .ChunkedPrefill}}--enable-chunked-prefill --max-num-batched-tokens {{.MaxNumBatchedTokens}}{{end}} --port {{$.Port}}",
		"vllm serve {{if .PrefixCaching}}--enable-prefix-caching{{else}}--no-enable-prefix-caching{{end}} --gpu-memory-utilization {{.GPUMemoryUtilization}}",
		"{{with .Label}}{{.}}{{end}} {{$n := .MaxNumSeqs}}{{$n}}",
		`{{define "tp"}}-tp {{.TensorParallel}}{{end}}serve {{if gt .TensorParallel 1}}{{template "tp" .}}{{end}}`,
		"{{range $i := .TensorParallel}}{{$i}},{{end}}",
		"{{printf \"%s:%s\" .Host .Port}} {{len .Device}} {{index .Label 0}} {{slice .Port 1}}",
		"{{if .ChunkedPrefill}}{{.MaxNumBatchedToken}}{{end}}", "{{with .Label}}{{.Port}}{{end}}",
		"{{if .PrefixCaching}}{{template \"nope\"}}{{end}}", "{{if .ChunkedPrefill}}{{len .MaxNumSeqs}}{{end}}",
		"{{if .BatchSize}}{{index .Device 9}}{{end}}", "{{.MaxNumSeqs", "{{.NoSuchKnob}}", "", "plain text",
		"{{/* c */}}{{- .Port -}}", "{{eq .Port 8000}}", "{{if eq .Strategy \"fixed\"}}{{call .Label}}{{end}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !boundedTemplate(in) {
			return
		}
		tm, err := ParseTemplate("engine-cmd", in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "verify: engine-cmd template: ") {
				t.Fatalf("ParseTemplate(%q): the error does not name the template: %v", in, err)
			}
			return
		}
		knobs := []Knobs{{}}
		if !comparesKnobs(in) {
			knobs = append(knobs, candidateKnobs...)
		}
		for _, k := range knobs {
			for _, chunked := range []bool{false, true} {
				for _, prefix := range []bool{false, true} {
					k.ChunkedPrefill, k.PrefixCaching = chunked, prefix
					if err := tm.Execute(io.Discard, k); err != nil && !dataError(err) {
						t.Fatalf("ParseTemplate(%q) accepted a template that fails on the knobs %+v: %v", in, k, err)
					}
					if _, err := Render("engine-cmd", in, k); err != nil && !dataError(err) {
						t.Fatalf("Render(%q, %+v): %v", in, k, err)
					}
				}
			}
		}
	})
}
