package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/servesim/servesim/verify"
)

// verify's exit message counts in words that agree with the count: "1
// candidate could not be measured", "2 metrics outside tolerance".
func TestVerifyOutcomeCountsInWords(t *testing.T) {
	for _, tc := range []struct {
		res  verify.Result
		code int
		want string
	}{
		{verify.Result{Incomplete: 1}, exitIncomplete, "verify: 1 candidate could not be measured"},
		{verify.Result{Incomplete: 3}, exitIncomplete, "verify: 3 candidates could not be measured"},
		{verify.Result{ToleranceFailures: 1}, exitToleranceFailed, "verify: 1 metric outside tolerance"},
		{verify.Result{ToleranceFailures: 2, Refit: &verify.RefitResult{Error: "no runs"}}, exitRefitFailed,
			"verify: --refit failed: no runs; 2 metrics outside tolerance"},
		// Exit 4 says what else failed: the candidates the table marks.
		{verify.Result{ToleranceFailures: 2, Incomplete: 1}, exitToleranceFailed,
			"verify: 2 metrics outside tolerance; 1 candidate could not be measured"},
		{verify.Result{Incomplete: 2, Refit: &verify.RefitResult{Error: "no runs"}}, exitRefitFailed,
			"verify: --refit failed: no runs; 2 candidates could not be measured"},
	} {
		err := verifyOutcome(&tc.res)
		if err == nil || err.Error() != tc.want || exitCode(err) != tc.code {
			t.Errorf("%+v: got %v (exit %d), want %q (exit %d)", tc.res, err, exitCode(err), tc.want, tc.code)
		}
	}
	if err := verifyOutcome(&verify.Result{}); err != nil {
		t.Errorf("nothing failed: got %v, want nil", err)
	}
}

// report lists a verify result among its sources with counts in words.
func TestReportVerifySourceCountsInWords(t *testing.T) {
	got := verifySource("v.json", &verify.Result{Candidates: make([]verify.CandidateResult, 1), Requests: 1})
	if want := "v.json: verify result, 1 candidate (0 not measured) on 1 request"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
	got = verifySource("v.json", &verify.Result{Candidates: make([]verify.CandidateResult, 2), Incomplete: 1, Requests: 20})
	if want := "v.json: verify result, 2 candidates (1 not measured) on 20 requests"; !strings.HasSuffix(got, want) {
		t.Errorf("source %q, want %q", got, want)
	}
}

// compare's exit message counts its regressions in words.
func TestCompareRegressionsInWords(t *testing.T) {
	if got, want := regressionsMessage(1, 0.1), "compare: 1 regression beyond 10%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := regressionsMessage(2, 0.1), "compare: 2 regressions beyond 10%"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return -1
}
