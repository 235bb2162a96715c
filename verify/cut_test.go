package verify

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A status detail cut for the table, and an engine log's tail cut for an
// error, are cut between characters: an engine's output in another script
// than ASCII stays valid UTF-8.
func TestCutsKeepWholeCharacters(t *testing.T) {
	for n := 150; n < 170; n++ {
		if s := oneLine("x"+strings.Repeat("ж", n), 160); !utf8.ValidString(s) {
			t.Errorf("oneLine of x and %d two-byte characters: %q is not valid UTF-8", n, s)
		}
	}
	dir := t.TempDir()
	for _, pad := range []string{"", "x"} {
		spec := EngineSpec{Start: `printf '` + strings.Repeat("ж", 400) + pad + `'; exit 1`, HealthURL: fakeEngine(t, dir),
			HealthTimeout: 5 * time.Second, StopTimeout: time.Second}
		_, err := StartEngine(context.Background(), spec, Knobs{}, filepath.Join(dir, "log"+pad))
		var ee *EngineError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "ж") {
			t.Fatalf("err = %v, want a failed start quoting the log", err)
		}
		if !utf8.ValidString(ee.Msg) {
			t.Errorf("detail %q is not valid UTF-8", ee.Msg)
		}
	}
}
