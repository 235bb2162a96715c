package traces

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Azure, Vidur, Mooncake and ShareGPT mark no row failed: --drop-failed
// drops nothing from them, so it must not make their imports a different
// workload from the same file imported without it.
func TestImportDropFailedWithoutFailuresKeepsWorkload(t *testing.T) {
	for _, c := range []struct {
		format ImportFormat
		in     string
	}{
		{FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,0\n"},
		{FormatVidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,374,0\n"},
		{FormatMooncake, `{"timestamp": 0, "input_length": 5, "output_length": 0, "hash_ids": [1]}` + "\n"},
		{FormatShareGPT, `[{"id": "a", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": ""}]}]`},
	} {
		meta := func(drop bool) Meta {
			r, err := NewImporter(c.format, strings.NewReader(c.in), ImportOptions{Rate: 1, DropFailed: drop})
			if err != nil {
				t.Fatalf("%s: %v", c.format, err)
			}
			return r.Meta()
		}
		if with, without := Workload(meta(true)), Workload(meta(false)); !maps.Equal(with, without) {
			t.Errorf("%s: workload with --drop-failed %v, without %v: want the same", c.format, with, without)
		}
	}
}

// A servesim or BurstGPT file without a failed row loses nothing to
// --drop-failed: its import must not be marked as having dropped rows,
// which would name another workload for the same requests.
func TestImportFileDropFailedWithoutFailuresKeepsWorkload(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"own.csv":   "arrival_ns,prompt_tokens,output_tokens,source_failed\n0,2,2,false\n5,2,2,false\n",
		"burst.csv": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n0,ChatGPT,3,4,7,Conversation log\n1,ChatGPT,3,4,7,Conversation log\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		with, _ := importAll(t, path, FormatAuto, ImportOptions{DropFailed: true})
		without, _ := importAll(t, path, FormatAuto, ImportOptions{})
		if w, wo := Workload(with), Workload(without); !maps.Equal(w, wo) {
			t.Errorf("%s: workload with --drop-failed %v, without %v: want the same", name, w, wo)
		}
	}
}
