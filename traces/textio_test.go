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
		{"csv negative prefix hash", ".csv", "arrival_ns,prompt_tokens,output_tokens,prefix_hashes\n0,1,1,1 -2\n",
			[]string{"line 2", `column prefix_hashes: want space-separated unsigned integers, got "-2"`}},
		{"csv fractional token time", ".csv", "arrival_ns,prompt_tokens,output_tokens,token_times_ns\n0,1,1,1.5\n",
			[]string{"line 2", `column token_times_ns: want space-separated integers, got "1.5"`}},
		{"csv metadata key twice", ".csv", "# servesim.source=a\n# servesim.model=m\n# servesim.source=b\n" + csvHeader + "0,1,1\n",
			[]string{"line 3: metadata servesim.source is given twice (first on line 1)"}},
		{"jsonl metadata key twice", ".jsonl", `{"meta": {"servesim.source": "a", "servesim.source": "b"}}` + "\n",
			[]string{"line 1: metadata servesim.source is given twice"}},
		{"jsonl metadata not strings", ".jsonl", `{"meta": {"servesim.block_size": 16}}` + "\n",
			[]string{"line 1: metadata: servesim.block_size:", "string"}},
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

// TestMetaKeepsUnknownKeys reads a key this version does not know and
// checks that it survives a conversion; the reader must not drop it.
func TestMetaKeepsUnknownKeys(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(src, []byte("# servesim.source=x\n# servesim.blocksize=16\n"+csvHeader+"0,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := src
	for _, ext := range []string{".parquet", ".jsonl", ".arrow", ".csv"} {
		next := filepath.Join(dir, "out"+ext)
		if _, err := Convert(t.Context(), prev, next); err != nil {
			t.Fatal(err)
		}
		prev = next
	}
	meta, _, err := ReadAll(prev)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Source != "x" || meta.Unknown["blocksize"] != "16" || len(meta.Unknown) != 1 {
		t.Errorf("after four conversions: %+v, want source x and servesim.blocksize=16 kept", meta)
	}
	if !strings.Contains(mustRead(t, prev), "# servesim.blocksize=16\n") {
		t.Errorf("%s lacks servesim.blocksize", prev)
	}
}

func TestMetaKeyGivenTwice(t *testing.T) {
	_, err := metaFromKV([]string{"servesim.x.seed", "servesim.model", "servesim.x.seed"}, []string{"1", "m", "2"})
	if err == nil || !strings.Contains(err.Error(), "metadata servesim.x.seed is given twice") {
		t.Errorf("err = %v, want the repeated key named", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Invalid UTF-8 in a JSONL string is refused, naming the line, the byte
// and the field, rather than read as U+FFFD.
func TestJSONLInvalidUTF8Refused(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"class", `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1}` + "\n" +
			`{"arrival_ns":1,"prompt_tokens":1,"output_tokens":1,"class":"a` + "\xff" + `b"}` + "\n",
			[]string{"line 2:63 (class)", "UTF-8"}},
		{"output text", `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1,"output_text":"` + "\xc3\x28" + `"}` + "\n",
			[]string{"line 1:68 (output_text)", "UTF-8"}},
		{"metadata", `{"meta":{"servesim.model":"m` + "\xe2\x82" + `"}}` + "\n",
			[]string{"line 1:29 (meta)", "UTF-8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			m, rows, err := ReadAll(path)
			if err == nil {
				t.Fatalf("read without error: meta %+v rows %+v", m, rows)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
	// Escaped non-ASCII text is fine.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1,"class":"é\u00e9"}`+"\n"), 0o644)
	if _, rows, err := ReadAll(path); err != nil || rows[0].Class != "éé" {
		t.Errorf("rows %+v, err %v", rows, err)
	}
}
