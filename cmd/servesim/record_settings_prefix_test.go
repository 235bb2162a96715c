package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A settings file that does not parse is a record error like any other,
// named as such, and stops before any request.
func TestRecordSettingsParseErrorNamesRecord(t *testing.T) {
	dir := t.TempDir()
	url, requests := countingServer(t)
	tr := writeFile(t, dir, "in.csv", smallCSV)
	settings := writeFile(t, dir, "s.json", `{"concurrency": "4"}`)
	_, code, err := runCode(t, "record", "--settings", settings, "--base-url", url, "--model", "m",
		"--api-key-env", "SERVESIM_NO_KEY", "--trace", tr, "--out", filepath.Join(dir, "o.csv"))
	if want := "record: settings " + settings + ": line 1: \"concurrency\": want an integer"; code != 2 || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("exit %d, err %v; want exit 2 and an error starting %q", code, err, want)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the engine", n)
	}
}
