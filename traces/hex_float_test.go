package traces

import (
	"strings"
	"testing"
)

// Counts and seconds are decimal: a hexadecimal float such as 0x1p4,
// which strconv.ParseFloat takes for 16, is a corrupt cell, not a value.
func TestImportRefusesHexFloats(t *testing.T) {
	for _, tc := range []struct {
		format ImportFormat
		in     string
		want   string
	}{
		{FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n0x1p4,1,2\n", "in.csv:2:1 (arrived_at): want non-negative seconds"},
		{FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n1,0X1P4,2\n", "in.csv:2:3 (num_prefill_tokens): want a token count"},
		{FormatBurstGPT, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,m,0x1p4,1,0x1.1p4,Conversation log\n", "in.csv:2:5 (Request tokens): want a token count"},
	} {
		r, err := NewImporter(tc.format, strings.NewReader(tc.in), ImportOptions{Name: "in.csv"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		err = r.Err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %d rows, err %v; want %q", tc.in, n, err, tc.want)
		}
	}
}
