package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A profile serves only plans whose device.model is its device, so a
// --device the catalog does not know ("H100" for H100-SXM-80G) is said
// before the live runs, not found out when simulate refuses the profile.
func TestCalibrateWarnsOfADeviceOutsideTheCatalog(t *testing.T) {
	args := []string{"calibrate", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--out", filepath.Join(t.TempDir(), "p.json"), "--dry-run"}
	out, err := run(t, append(args, "--device", "H100")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `--device "H100"`) || !strings.Contains(out, "H100-SXM-80G") {
		t.Errorf("--device H100: no warning naming it and the catalog's devices:\n%s", out)
	}
	out, err = run(t, append(args, "--device", "h200-141g")...) // the catalog's names match in any case
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "--device") {
		t.Errorf("--device h200-141g: warned of a catalog device:\n%s", out)
	}
}
