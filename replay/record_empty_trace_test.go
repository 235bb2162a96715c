package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// A trace with no rows to send is refused before any request: recording
// it would write an empty trace and succeed, measuring nothing.
func TestRecordRefusesTraceWithoutRows(t *testing.T) {
	for name, write := range map[string]func(t *testing.T, dir string) string{
		"metadata only": func(t *testing.T, dir string) string { return writeTrace(t, dir, "in.jsonl", nil) },
		"empty file": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "in.jsonl")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := replaytest.New(replaytest.Options{})
			defer srv.Close()
			cfg, dir := recordConfig(t, srv, nil)
			cfg.Text = TextModel{} // calibrating would probe the engine first
			cfg.Trace = write(t, dir)
			_, err := Record(t.Context(), cfg, nil)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "Trace" || !strings.Contains(err.Error(), "no requests") {
				t.Fatalf("Record: %v, want a Trace error saying it holds no requests", err)
			}
			if n := srv.Count(); n != 0 {
				t.Errorf("the server got %d requests, want none", n)
			}
			if _, err := os.Lstat(cfg.Out); err == nil {
				t.Errorf("%s written", cfg.Out)
			}
		})
	}
}
