package traces

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func bufioString(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 4096) }

// sliceReader is an in-memory Reader for tests.
type sliceReader struct {
	meta Meta
	rows []*Request
	i    int
}

func (r *sliceReader) Meta() Meta   { return r.meta }
func (r *sliceReader) Next() bool   { r.i++; return r.i <= len(r.rows) }
func (r *sliceReader) At() *Request { return r.rows[r.i-1] }
func (r *sliceReader) Err() error   { return nil }
func (r *sliceReader) Close() error { return nil }

const azureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n"

// TestBadInput checks that each kind of malformed input is an error that
// names the position and what was expected.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format ImportFormat
		in     string
		want   []string
	}{
		{"azure bad number", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,374,44\n2023-11-16 18:15:47.00,abc,5\n",
			[]string{"in.csv:3:24 (ContextTokens)", "want a token count", `"abc"`}},
		{"azure negative", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,374,-4\n",
			[]string{"in.csv:2:28 (GeneratedTokens)", "non-negative"}},
		{"azure absurd", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,20000000,4\n",
			[]string{"in.csv:2:24 (ContextTokens)", "at most 10000000", "absurd"}},
		{"azure bad timestamp", FormatAzure, azureHeader + "16/11/2023 18:15,1,1\n",
			[]string{"in.csv:2:1 (TIMESTAMP)", "want a timestamp like"}},
		{"azure back in time", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,1,1\n2023-11-16 18:15:45.68,1,1\n",
			[]string{"in.csv:3:1 (TIMESTAMP): arrival goes back in time", "1s"}},
		{"azure missing column", FormatAzure, "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.68,1\n",
			[]string{"in.csv:1: missing column \"GeneratedTokens\""}},
		{"azure short row", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,1\n",
			[]string{"in.csv:2: column GeneratedTokens is missing", "want 3 fields as in the header, got 2"}},
		{"azure long row", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,10,20,30,40\n",
			[]string{"in.csv:2:30: want 3 fields as in the header, got 5"}},
		{"azure bare quote", FormatAzure, azureHeader + "2023-11-16 18:15:46.68,3\"74,44\n",
			[]string{`in.csv:2:25 (ContextTokens): bare " in non-quoted-field`}},
		{"azure duplicate column", FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens,contexttokens\n2023-11-16 18:15:46.68,1,1,2\n",
			[]string{"in.csv:1: column \"contexttokens\" appears twice (fields 2 and 4)"}},
		{"burstgpt short row", FormatBurstGPT, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18\n",
			[]string{"in.csv:2: column Total tokens is missing", "want 6 fields as in the header, got 4"}},
		{"burstgpt total off the sum", FormatBurstGPT, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,590,Conversation log\n",
			[]string{"in.csv:2:18 (Total tokens)", "want 490 (Request tokens 472 + Response tokens 18)", `got "590"`}},
		{"burstgpt total not a count", FormatBurstGPT, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,x,Conversation log\n",
			[]string{"in.csv:2:18 (Total tokens)", "want 490"}},
		{"azure empty", FormatAzure, "", []string{"empty input"}},
		{"azure bad quote", FormatAzure, azureHeader + "\"2023,1,1\n", []string{"in.csv:2:"}},
		{"burstgpt both session columns", FormatBurstGPT, "Timestamp,Session ID,Request tokens,Response tokens,SessionID\n5,a,472,18,b\n",
			[]string{"in.csv:1: column \"Session ID\" appears twice, as \"Session ID\" and \"SessionID\" (fields 2 and 5)"}},
		{"burstgpt missing column", FormatBurstGPT, "Timestamp,Model,Response tokens\n1,x,2\n",
			[]string{"missing column \"Request tokens\""}},
		{"burstgpt negative time", FormatBurstGPT, "Timestamp,Request tokens,Response tokens\n-1,2,3\n",
			[]string{"in.csv:2:1 (Timestamp)", "non-negative seconds"}},
		{"vidur back in time", FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n1.5,1,1\n1.25,1,1\n",
			[]string{"in.csv:3:1 (arrived_at): arrival goes back in time"}},
		{"vidur fractional tokens", FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n1.5,1.5,1\n",
			[]string{"in.csv:2:5 (num_prefill_tokens)"}},
		{"vidur datetime arrival", FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n2023-11-16 18:15:46,1,1\n",
			[]string{"in.csv:2:1 (arrived_at): want non-negative seconds below 2^32"}},
		{"vidur negative decode tokens", FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n1.5,1,-1\n",
			[]string{"in.csv:2:7 (num_decode_tokens): want a non-negative token count"}},
		{"vidur missing column", FormatVidur, "arrived_at,num_prefill_tokens\n1.5,1\n",
			[]string{`in.csv:1: missing column "num_decode_tokens"`}},
		{"mooncake missing field", FormatMooncake, `{"timestamp": 1, "output_length": 3}` + "\n",
			[]string{"in.csv:1 (input_length)", "got none"}},
		{"mooncake bad type", FormatMooncake, `{"timestamp": 1, "input_length": "x", "output_length": 3}` + "\n",
			[]string{"in.csv:1:", "input_length", "want int64"}},
		{"mooncake negative hash", FormatMooncake, `{"timestamp": 1, "input_length": 1, "output_length": 3, "hash_ids": [-1]}` + "\n",
			[]string{"in.csv:1:", "hash_ids"}},
		{"mooncake too few hashes", FormatMooncake, `{"timestamp": 1, "input_length": 1025, "output_length": 3, "hash_ids": [1, 2]}` + "\n",
			[]string{"in.csv:1:72 (hash_ids)", "3 ids", "input_length 1025", "got 2"}},
		{"mooncake too many hashes", FormatMooncake, `{"timestamp": 1, "input_length": 512, "output_length": 3, "hash_ids": [1, 2]}` + "\n",
			[]string{"in.csv:1:71 (hash_ids)", "1 ids", "input_length 512", "got 2"}},
		{"mooncake truncated", FormatMooncake, `{"timestamp": 1, "input_length": 1, "output_length": 3}` + "\n" + `{"timestamp": 2, "inp`,
			[]string{"in.csv:2:", "want a JSON object"}},
		{"mooncake back in time", FormatMooncake, `{"timestamp": 5, "input_length": 1, "output_length": 3}` + "\n" + `{"timestamp": 2, "input_length": 1, "output_length": 3}`,
			[]string{"in.csv:2:15 (timestamp): arrival goes back in time"}},
		{"sharegpt not an array", FormatShareGPT, `{"id": 1}`, []string{"want a JSON array"}},
		{"sharegpt truncated", FormatShareGPT, `[{"id": "a", "conversations": [{"from": "human", "value": "x"}, {"from": "gpt", "value": "y"}]}, {"id"`,
			[]string{"conversation 2"}},
		{"sharegpt trailing garbage", FormatShareGPT, `[] x`, []string{"end of input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importStringErr(tc.format, tc.in, ImportOptions{Name: "in.csv", Rate: 1})
			if err == nil {
				t.Fatalf("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestBadInputLeavesNoOutput runs a failing import into a file and checks
// that nothing is left behind.
func TestBadInputLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte(azureHeader+"2023-11-16 18:15:46.68,1,1\n2023-11-16 18:15:46.69,x,1\n"), 0o644)
	for _, ext := range []string{".parquet", ".csv", ".jsonl", ".arrow"} {
		out := filepath.Join(dir, "out"+ext)
		r, err := Import(in, FormatAuto, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteTrace(t.Context(), out, r); err == nil || !strings.Contains(err.Error(), "in.csv:3:") {
			t.Errorf("%s: err = %v", ext, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left %v, want only in.csv", ents)
	}
}

func TestImportTruncatedParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteAll(path, Meta{}, sampleRequests()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-10], 0o644)
	r, err := Import(path, FormatAuto, ImportOptions{})
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Close()
	}
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want an error naming %s", err, path)
	}
}

// An unknown format's error lists the formats as words a user can type.
func TestUnknownImportFormatListsFormats(t *testing.T) {
	_, err := NewImporter("nope", strings.NewReader("a,b\n"), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), `"nope" (want auto, azure, burstgpt, mooncake, vidur, sharegpt, servesim)`) {
		t.Errorf("err = %v", err)
	}
}

// A servesim file's token count above the bound is reported, like an
// importer's, by the column that holds it and the bound it broke.
func TestImportServesimAbsurdTokensNamesColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "own.csv")
	os.WriteFile(path, []byte("arrival_ns,prompt_tokens,output_tokens\n0,5,5\n1,5,200\n"), 0o644)
	r, err := Import(path, FormatAuto, ImportOptions{MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	r.Close()
	err = r.Err()
	for _, w := range []string{"own.csv: line 3", "output_tokens", "at most 100", "got 200"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want it to contain %q", err, w)
		}
	}
}
