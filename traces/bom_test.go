package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// Sniff looks past a UTF-8 byte-order mark (as editors that save "UTF-8
// with BOM" write it); the reader of the format it names must too.
func TestImportSkipsByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	dir := t.TempDir()
	for name, body := range map[string]string{
		"plain.csv":    "arrival_ns,prompt_tokens,output_tokens\r\n0,10,5\r\n",
		"meta.csv":     "# servesim.source=x\narrival_ns,prompt_tokens,output_tokens\n0,10,5\n",
		"meta.jsonl":   `{"meta": {"servesim.source": "x"}}` + "\n" + `{"arrival_ns": 0, "prompt_tokens": 10, "output_tokens": 5}` + "\n",
		"plain.jsonl":  `{"arrival_ns": 0, "prompt_tokens": 10, "output_tokens": 5}` + "\n",
		"moon.jsonl":   `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}` + "\n",
		"share.json":   `[{"id": "a", "conversations": [{"from": "human", "value": "0123456789abcdefghijklmnopqrstuvwxyz0123"}, {"from": "gpt", "value": "0123456789abcdefghij"}]}]`,
		"azure.csv":    "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,10,5\n",
		"burstgpt.csv": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,10,5,15,Conversation log\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(bom+body), 0o644)
		f, err := DetectFormat(path, FormatAuto)
		if err != nil {
			t.Errorf("%s: sniff: %v", name, err)
			continue
		}
		r, err := Import(path, f, ImportOptions{Rate: 1})
		if err != nil {
			t.Errorf("%s (%s): %v", name, f, err)
			continue
		}
		n := 0
		for r.Next() {
			if q := r.At(); q.PromptTokens != 10 || q.OutputTokens != 5 {
				t.Errorf("%s: row %+v", name, q)
			}
			n++
		}
		if err := r.Err(); err != nil || n != 1 {
			t.Errorf("%s (%s): %d rows, err %v; want 1 row", name, f, n, err)
		}
		if m := r.Meta(); (name == "meta.csv" || name == "meta.jsonl") && m.Source != "x" {
			t.Errorf("%s: source %q, want x", name, m.Source)
		}
		r.Close()
	}
}
