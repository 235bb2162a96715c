package calibrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/traces"
)

// A block longer than any prompt never fills: the profile bounds its
// block_size as --block-size is bounded, and the error names the file
// and the field.
func TestLoadProfileRejectsBlockSizePastAnyPrompt(t *testing.T) {
	golden, err := os.ReadFile("testdata/profile_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := traces.MaxBlockSize + 1
	s := strings.Replace(string(golden), `"block_size": 16`, fmt.Sprintf(`"block_size": %d`, bad), 1)
	if s == string(golden) {
		t.Fatal(`"block_size": 16 not found in the golden profile`)
	}
	path := filepath.Join(t.TempDir(), "huge-block.json")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadProfile(path)
	want := fmt.Sprintf("block_size = %d: want a KV block size in [0, %d]", bad, traces.MaxBlockSize)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to name %s and contain %q", err, path, want)
	}
	// The largest accepted block is the bound itself.
	p := testProfile()
	p.BlockSize, p.KV.Blocks = traces.MaxBlockSize, 1
	if err := p.Validate(); err != nil {
		t.Errorf("block_size = MaxBlockSize refused: %v", err)
	}
}
