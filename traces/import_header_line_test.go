package traces

import (
	"strings"
	"testing"
)

// The CSV reader skips blank lines, so a header below them is not on
// line 1: its errors name the line it is on.
func TestCSVHeaderErrorsNameTheHeaderLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format ImportFormat
		in     string
		want   string
	}{
		{"missing column", FormatVidur, "\n\narrived_at,num_prefill_tokens\n1.5,1\n",
			`in.csv:3: missing column "num_decode_tokens"`},
		{"repeated column", FormatAzure, "\r\n" + "TIMESTAMP,ContextTokens,GeneratedTokens,contexttokens\n2023-11-16 18:15:46.68,1,1,2\n",
			`in.csv:2: column "contexttokens" appears twice`},
		{"both spellings", FormatBurstGPT, "\ufeff\nTimestamp,Session ID,Request tokens,Response tokens,SessionID\n5,a,472,18,b\n",
			`in.csv:2: column "Session ID" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importStringErr(tc.format, tc.in, ImportOptions{Name: "in.csv"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
