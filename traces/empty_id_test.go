package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty id is a value like any other: the text formats give it back
// as written rather than as the row's line number, which could equal
// another row's id ("3" on line 3 of the CSV below). Only a file without
// an id at all (no id column, no "id" key) gets line numbers.
func TestEmptyIDRoundTripsInTextFormats(t *testing.T) {
	rows := []*Request{{ID: "3"}, {ID: "", Arrival: 1}}
	for _, r := range rows {
		id, a := r.ID, r.Arrival
		r.Reset()
		r.ID, r.Arrival, r.PromptTokens, r.OutputTokens = id, a, 1, 1
	}
	for _, ext := range []string{"parquet", "csv", "jsonl"} {
		path := filepath.Join(t.TempDir(), "t."+ext)
		if err := WriteAll(path, Meta{}, rows); err != nil {
			t.Fatal(err)
		}
		_, got, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != "3" || got[1].ID != "" {
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			t.Errorf("%s: ids %q, want [\"3\" \"\"]", ext, ids)
		}
	}
	// Without ids, rows are named by their line.
	dir := t.TempDir()
	for name, body := range map[string]string{
		"n.csv":   "# servesim.source=x\narrival_ns,prompt_tokens,output_tokens\n0,1,1\n",
		"n.jsonl": "{\"meta\": {}}\n{\"arrival_ns\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		_, got, err := ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"n.csv": "3", "n.jsonl": "2"}[name]
		if len(got) != 1 || got[0].ID != want {
			t.Errorf("%s: %d rows, id %q, want one with id %q (its line)", name, len(got), got[0].ID, want)
		}
	}
}
