package traces

import (
	"os"
	"path/filepath"
	"testing"
)

// Dropped counts the rows DropFailed drops from a servesim file and from
// a BurstGPT one alike, as the import reads them.
func TestImportCountsDroppedRows(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"own.csv":   "arrival_ns,prompt_tokens,output_tokens,source_failed\n0,2,0,true\n5,2,2,false\n7,2,0,true\n",
		"burst.csv": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n0,ChatGPT,3,0,3,Conversation log\n1,ChatGPT,3,4,7,Conversation log\n2,ChatGPT,3,0,3,Conversation log\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var dropped int64
		_, rows := importAll(t, path, FormatAuto, ImportOptions{DropFailed: true, Dropped: &dropped})
		if len(rows) != 1 || dropped != 2 {
			t.Errorf("%s: %d rows kept, %d dropped: want 1 kept, 2 dropped", name, len(rows), dropped)
		}
	}
}
