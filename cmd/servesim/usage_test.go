package main

import (
	"strings"
	"testing"
)

// A flag urfave/cli cannot parse (unknown, or a value of the wrong kind)
// and a required flag left out are usage errors, exit status 2, as every
// other bad setting a verb finds, and the message names the flag. They
// ended in status 1, the status of a failed run (record's when no request
// succeeded).
func TestFlagErrorsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--concurrency", "x"}, "-concurrency"},
		{[]string{"record", "proxy", "--bogus"}, "-bogus"},
		{[]string{"compare", "--bogus", "a", "b"}, "-bogus"},
		{[]string{"trace", "stats", "--bogus", "x.csv"}, "-bogus"},
		{[]string{"--bogus"}, "-bogus"},
		{[]string{"verify", "--trace", "t.csv", "--model", "m"}, "--candidates, --base-url"},
		{[]string{"calibrate", "--dry-run"}, "--out"},
		{[]string{"record", "proxy", "--out", "x.parquet"}, "--upstream"},
		{[]string{"verify", "--candidates", "c.json", "--trace", "t.csv", "--base-url", "http://h/v1", "--model", "m", "extra"}, `"extra"`},
		{[]string{"calibrate", "--out", "p.json", "--dry-run", "extra"}, `"extra"`},
	} {
		out, code, err := runCode(t, tc.args...)
		if code != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, err %v; want exit 2 naming %s\n%s", tc.args, code, err, tc.want, out)
		}
	}
}
