package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const csvHeader = "arrival_ns,prompt_tokens,output_tokens\n"

// TestTextRejects checks that malformed servesim CSV and JSONL files are
// errors naming the file, the line and what was expected.
func TestTextRejects(t *testing.T) {
	for _, tc := range []struct {
		name, ext, in string
		want          []string
	}{
		{"csv truncated row", ".csv", "id,arrival_ns,prompt_tokens,output_tokens,class\na,0,10,5,x\nb,10,5\n",
			[]string{"line 3", "want 5 fields as in the header, got 3"}},
		{"csv extra field", ".csv", csvHeader + "0,10,10,99,100\n",
			[]string{"line 2", "want 3 fields as in the header, got 5"}},
		{"csv duplicate column", ".csv", "arrival_ns,prompt_tokens,output_tokens,arrival_ns\n0,1,1,5\n",
			[]string{"line 1", `column "arrival_ns" appears twice (fields 1 and 4)`}},
		{"jsonl two objects", ".jsonl", `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}` + "\n" +
			`{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1}` + "\n",
			[]string{"line 2:53: want one JSON object per line"}},
		{"jsonl trailing garbage", ".jsonl", `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1} garbage` + "\n",
			[]string{"line 1:54: want one JSON object per line"}},
		{"csv arrival too late", ".csv", csvHeader + "0,100,10\n9223372036854775000,100,10\n",
			[]string{"line 3", "arrival_ns 9223372036854775000 is above 4294967296000000000 (2^32 s)"}},
		{"jsonl arrival too late", ".jsonl", `{"arrival_ns":4294967296000000001,"prompt_tokens":1,"output_tokens":1}` + "\n",
			[]string{"line 1", "arrival_ns 4294967296000000001 is above"}},
		{"jsonl first token before arrival", ".jsonl", `{"arrival_ns":1000000000,"prompt_tokens":1,"output_tokens":1,"http_status":200,"first_token_ns":0,"last_token_ns":0}` + "\n",
			[]string{"line 1", "first_token_ns 0 is before arrival_ns 1000000000"}},
		{"csv last token before first", ".csv", "arrival_ns,prompt_tokens,output_tokens,scheduled_send_ns,first_token_ns,last_token_ns\n0,1,2,10,30,20\n",
			[]string{"line 2", "last_token_ns 20 is before first_token_ns 30"}},
		{"csv sent before scheduled", ".csv", "arrival_ns,prompt_tokens,output_tokens,scheduled_send_ns,actual_send_ns\n100,1,2,10,5\n",
			[]string{"line 2", "actual_send_ns 5 is before scheduled_send_ns 10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t"+tc.ext)
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadAll(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}
