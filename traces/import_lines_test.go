package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importErr imports the file body written as name and returns the error
// reading it gives.
func importErr(t *testing.T, name, body string, opt ImportOptions) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, FormatAuto, opt)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
	}
	return r.Err()
}

// A servesim text file's out-of-order or absurd row is named by its line,
// as its other errors are: metadata lines put row N well below line N.
func TestImportServesimRowErrorsNameTheLine(t *testing.T) {
	const csvHead = "# servesim.model=m\n# servesim.source=s\n# servesim.x.seed=1\narrival_ns,prompt_tokens,output_tokens\n"
	const jsonlHead = `{"meta": {"servesim.model": "m"}}` + "\n"
	for _, tc := range []struct {
		name, body string
		opt        ImportOptions
		want       string
	}{
		{"t.csv", csvHead + "5,1,1\n6,1,1\n\"3\",1,1\n", ImportOptions{}, "t.csv: line 7: arrival_ns: arrival goes back in time"},
		{"t.csv", csvHead + "5,1,1\n6,1,1\n7,1,200\n", ImportOptions{MaxTokens: 100}, "t.csv: line 7: output_tokens: want a token count of at most 100"},
		{"t.jsonl", jsonlHead + `{"arrival_ns": 5, "prompt_tokens": 1, "output_tokens": 1}` + "\n\n" +
			`{"arrival_ns": 3, "prompt_tokens": 1, "output_tokens": 1}` + "\n", ImportOptions{}, "t.jsonl: line 4: arrival_ns: arrival goes back in time"},
		{"t.jsonl", jsonlHead + `{"arrival_ns": 5, "prompt_tokens": 200, "output_tokens": 1}` + "\n", ImportOptions{MaxTokens: 100},
			"t.jsonl: line 2: prompt_tokens: want a token count of at most 100"},
		// Without metadata, the first JSONL row is line 1.
		{"t.jsonl", `{"arrival_ns": 5, "prompt_tokens": 1, "output_tokens": 1}` + "\n" +
			`{"arrival_ns": 3, "prompt_tokens": 1, "output_tokens": 1}` + "\n", ImportOptions{}, "t.jsonl: line 2: arrival_ns: arrival goes back in time"},
	} {
		if err := importErr(t, tc.name, tc.body, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// A bad metadata value in a CSV is named by its line, as in JSONL.
func TestImportCSVBadMetadataNamesTheLine(t *testing.T) {
	body := "# servesim.model=m\n# servesim.block_size=sixteen\narrival_ns,prompt_tokens,output_tokens\n0,1,1\n"
	err := importErr(t, "t.csv", body, ImportOptions{})
	if want := `t.csv: line 2: metadata servesim.block_size: want a non-negative integer, got "sixteen"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}
