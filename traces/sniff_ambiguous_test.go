package traces

import (
	"strings"
	"testing"
)

// A first line that fits two formats is refused, naming both, rather than
// read as whichever is tried first: the formats take time from different
// columns.
func TestSniffAmbiguous(t *testing.T) {
	for in, names := range map[string][]string{
		"TIMESTAMP,ContextTokens,GeneratedTokens,arrived_at\n":                      {"azure", "vidur"},
		"Timestamp,ContextTokens,Request tokens,Response tokens\n":                  {"azure", "burstgpt"},
		"arrived_at,num_prefill_tokens,num_decode_tokens,arrival_ns\n":              {"vidur", "servesim"},
		`{"arrival_ns": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}`: {"mooncake", "servesim"},
	} {
		f, err := Sniff(bufioString(in))
		if err == nil {
			t.Errorf("Sniff(%.40q) = %v, want an error", in, f)
			continue
		}
		for _, n := range append(names, "--format") {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("Sniff(%.40q): error %q does not name %s", in, err, n)
			}
		}
	}
}
