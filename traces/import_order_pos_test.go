package traces

import (
	"strings"
	"testing"
)

// A public trace whose timestamp goes back in time is refused naming the
// timestamp's line, column and field, and what was wanted of it, as every
// other bad value of an import is.
func TestImportBackInTimeNamesTheTimestamp(t *testing.T) {
	const burst = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	for _, tc := range []struct {
		name   string
		format ImportFormat
		in     string
		want   string
	}{
		{"azure", FormatAzure, "ContextTokens,GeneratedTokens,TIMESTAMP\n1,1,2023-11-16 18:15:46.6805900\n1,1,2023-11-16 18:15:45.6805900\n",
			"in:3:5 (TIMESTAMP): arrival goes back in time: want a timestamp at or after the previous row's, got one 1s before it"},
		{"burstgpt", FormatBurstGPT, burst + "5,ChatGPT,1,1,2,Conversation log\n4.5,ChatGPT,1,1,2,Conversation log\n",
			"in:3:1 (Timestamp): arrival goes back in time: want a timestamp at or after the previous row's, got one 500ms before it"},
		{"vidur", FormatVidur, "num_prefill_tokens,arrived_at,num_decode_tokens\n1, 2,1\n1, 1,1\n",
			"in:3:4 (arrived_at): arrival goes back in time"},
		{"mooncake", FormatMooncake, `{"timestamp": 5, "input_length": 1, "output_length": 3}` + "\n" + ` {"input_length": 1, "timestamp": 2, "output_length": 3}` + "\n",
			"in:2:35 (timestamp): arrival goes back in time: want a timestamp at or after the previous row's, got one 3ms before it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importStringErr(tc.format, tc.in, ImportOptions{Name: "in"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
