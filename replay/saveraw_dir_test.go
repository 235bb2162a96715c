package replay

import (
	"os"
	"path/filepath"
	"testing"
)

// A new --save-raw directory written with a trailing slash lies in the
// directory above it, which exists: it is no missing parent.
func TestValidateRecordTakesANewSaveRawWithATrailingSlash(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(trace, []byte("id,arrival_ns,prompt_tokens,output_tokens\nq,1,5,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Trace, cfg.Out = "http://127.0.0.1:1/v1", "m", trace, filepath.Join(dir, "out.csv")
	cfg.SaveRaw = filepath.Join(dir, "raw") + string(filepath.Separator)
	if err := cfg.ValidateRecord(); err != nil {
		t.Errorf("ValidateRecord: %v; want a new directory beside the trace taken", err)
	}
}
