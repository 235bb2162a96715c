package replay

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servesim/servesim/replay/replaytest"
	"github.com/servesim/servesim/replay/sse"
	"github.com/servesim/servesim/traces"
)

// TestFaults runs one request per fault and checks that it is recorded as a
// failure of the right kind, with every metric empty.
func TestFaults(t *testing.T) {
	const keyEnv = "SERVESIM_FAULT_TEST_KEY"
	cases := []struct {
		name    string
		opts    replaytest.Options
		base    func(srv *replaytest.Server) string // nil: srv.BaseURL()
		key     *string                             // nil: env unset
		timeout time.Duration
		kind    string
		status  int32
		want    []string // substrings of Error
	}{
		{name: "401 key unset", opts: replaytest.Options{APIKey: "right"}, kind: KindAuth, status: 401,
			want: []string{"HTTP 401", "Incorrect API key", "$" + keyEnv + ": unset"}},
		{name: "401 key empty", opts: replaytest.Options{APIKey: "right"}, key: ptr(""), kind: KindAuth, status: 401,
			want: []string{"$" + keyEnv + ": empty"}},
		{name: "401 key with whitespace", opts: replaytest.Options{APIKey: "right"}, key: ptr("wrong "), kind: KindAuth, status: 401,
			want: []string{"$" + keyEnv + ": set, with leading or trailing whitespace"}},
		{name: "404 missing /v1", base: func(s *replaytest.Server) string { return s.URL }, kind: KindNotFound, status: 404,
			want: []string{"POST http://", "/chat/completions", "has no /v1", "usually want"}},
		{name: "404 doubled /v1", base: func(s *replaytest.Server) string { return s.URL + "/v1/v1" }, kind: KindNotFound, status: 404,
			want: []string{"/v1/v1/chat/completions", "doubled /v1"}},
		{name: "404 endpoint in base URL", base: func(s *replaytest.Server) string { return s.URL + "/v1/chat/completions" }, kind: KindNotFound, status: 404,
			want: []string{"already ends in an endpoint path"}},
		{name: "404 half an endpoint in base URL", base: func(s *replaytest.Server) string { return s.URL + "/v1/chat" }, kind: KindNotFound, status: 404,
			want: []string{"/v1/chat/chat/completions", "already ends in an endpoint path", "e.g. http://"}},
		{name: "429", opts: replaytest.Options{Fault: always(replaytest.Status), Status: 429}, kind: KindRateLimited, status: 429,
			want: []string{"HTTP 429", "injected status 429"}},
		{name: "500", opts: replaytest.Options{Fault: always(replaytest.Status)}, kind: KindServer, status: 500, want: []string{"HTTP 500"}},
		{name: "503", opts: replaytest.Options{Fault: always(replaytest.Status), Status: 503}, kind: KindServer, status: 503, want: []string{"HTTP 503"}},
		{name: "connection refused", base: func(*replaytest.Server) string { return replaytest.ClosedAddr() }, kind: KindConnection,
			status: traces.Missing, want: []string{"refused"}},
		{name: "connection reset before response", opts: replaytest.Options{Fault: always(replaytest.Reset)}, kind: KindConnection,
			status: traces.Missing, want: []string{"before"}},
		{name: "connection reset mid-stream", opts: replaytest.Options{Fault: always(replaytest.ResetMidStream)}, kind: KindConnection,
			status: 200, want: []string{"mid-stream", "after 2 content chunks"}},
		{name: "no [DONE]", opts: replaytest.Options{Fault: always(replaytest.NoDone)}, kind: KindNoDone, status: 200,
			want: []string{"without data: [DONE]", "after 5 content chunks"}},
		{name: "error object in stream", opts: replaytest.Options{Fault: always(replaytest.StreamError)}, kind: KindStreamError, status: 200,
			want: []string{"injected engine failure"}},
		{name: "empty choices", opts: replaytest.Options{Fault: always(replaytest.EmptyChoices)}, kind: KindEmptyChoices, status: 200,
			want: []string{"has empty choices", `"choices":[]`}}, // which chunk: TestChunkNumbers
		{name: "missing usage", opts: replaytest.Options{Fault: always(replaytest.NoUsage)}, kind: KindNoUsage, status: 200,
			want: []string{"no chunk carried usage"}},
		{name: "timeout", opts: replaytest.Options{Fault: always(replaytest.Hang)}, timeout: 150 * time.Millisecond, kind: KindTimeout, status: 200,
			want: []string{"within 150ms"}},
		{name: "line without end", opts: replaytest.Options{Fault: always(replaytest.Unterminated)}, kind: KindBadStream, status: 200,
			want: []string{"SSE line over 8388608 bytes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := replaytest.New(tc.opts)
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.APIKeyEnv = keyEnv
			if tc.key != nil {
				t.Setenv(keyEnv, *tc.key)
			}
			if tc.base != nil {
				cfg.BaseURL = tc.base(srv)
			}
			if tc.timeout > 0 {
				cfg.Timeout = tc.timeout
			}
			s, out := runRows(t, cfg, rows(1, 0, 40, 5))
			r := out[0]
			if got := ErrorKind(r.Error); got != tc.kind {
				t.Fatalf("kind %q, want %q (error %q)", got, tc.kind, r.Error)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Error, w) {
					t.Errorf("error %q lacks %q", r.Error, w)
				}
			}
			if r.HTTPStatus != tc.status {
				t.Errorf("HTTP status %d, want %d", r.HTTPStatus, tc.status)
			}
			if r.FirstToken != traces.Missing || r.LastToken != traces.Missing || r.TokenTimes != nil || r.UsageOutput != traces.Missing ||
				r.UsagePrompt != traces.Missing || r.Chunks != traces.Missing || r.Succeeded() {
				t.Errorf("failed request kept metrics: %+v", r)
			}
			if r.ActualSend == traces.Missing || r.ScheduledSend == traces.Missing {
				t.Errorf("send times not recorded")
			}
			if s.Failed != 1 || s.FailedByKind[tc.kind] != 1 || s.TTFT.N != 0 || s.E2E.N != 0 {
				t.Errorf("summary: failed %d by kind %v, TTFT n %d", s.Failed, s.FailedByKind, s.TTFT.N)
			}
		})
	}
}

// TestLineEnds streams with each line end the SSE standard allows: every
// request is measured in full.
func TestLineEnds(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		srv := replaytest.New(replaytest.Options{LineEnd: eol, TokensPerChunk: 2})
		cfg := testConfig(srv)
		s, out := runRows(t, cfg, rows(4, 0, 40, 9))
		srv.Close()
		if s.Succeeded != 4 {
			t.Fatalf("line end %q: %d of 4 succeeded (%v)", eol, s.Succeeded, s.FailedByKind)
		}
		for i, r := range out {
			if r.UsageOutput != 9 || r.Chunks != 5 || len(r.TokenTimes) != 9 {
				t.Errorf("line end %q, row %d: usage %d, %d chunks, %d token times; want 9, 5, 9", eol, i, r.UsageOutput, r.Chunks, len(r.TokenTimes))
			}
		}
	}
}

// TestFaultsDoNotStopTheRun mixes every in-stream fault into one run.
func TestFaultsDoNotStopTheRun(t *testing.T) {
	faults := []replaytest.Fault{replaytest.OK, replaytest.Status, replaytest.Reset, replaytest.ResetMidStream,
		replaytest.NoDone, replaytest.StreamError, replaytest.EmptyChoices, replaytest.NoUsage}
	srv := replaytest.New(replaytest.Options{Fault: func(n int) replaytest.Fault { return faults[n%len(faults)] }})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Arrival, cfg.Concurrency = Closed, 1 // server order = trace order
	s, out := runRows(t, cfg, rows(3*len(faults), 0, 16, 4))
	if s.Sent != 24 || s.Succeeded != 3 || s.Failed != 21 {
		t.Fatalf("sent %d succeeded %d failed %d (%v)", s.Sent, s.Succeeded, s.Failed, s.FailedByKind)
	}
	want := map[string]int{KindServer: 3, KindConnection: 6, KindNoDone: 3, KindStreamError: 3, KindEmptyChoices: 3, KindNoUsage: 3}
	for k, n := range want {
		if s.FailedByKind[k] != n {
			t.Errorf("kind %s: %d, want %d (%v)", k, s.FailedByKind[k], n, s.FailedByKind)
		}
	}
	for i, r := range out {
		if (i%len(faults) == 0) != r.Succeeded() {
			t.Errorf("row %d: succeeded %v, error %q", i, r.Succeeded(), r.Error)
		}
	}
	if s.TTFT.N != 3 {
		t.Errorf("TTFT from %d requests, want the 3 successes", s.TTFT.N)
	}
}

func TestErrorKind(t *testing.T) {
	for in, want := range map[string]string{"": "", "timeout: x": KindTimeout, "no colon": KindClient, "two words: x": KindClient} {
		if got := ErrorKind(in); got != want {
			t.Errorf("ErrorKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func always(f replaytest.Fault) func(int) replaytest.Fault {
	return func(int) replaytest.Fault { return f }
}

func ptr[T any](v T) *T { return &v }

// TestPaddedDone: a [DONE] with white space after it ends the stream, as
// it does for the recording proxy (sse.IsDone is their one rule).
func TestPaddedDone(t *testing.T) {
	for _, pad := range []string{" ", "  ", "\t", " \t "} {
		srv := replaytest.New(replaytest.Options{DonePad: pad})
		s, out := runRows(t, testConfig(srv), rows(2, 0, 40, 5))
		srv.Close()
		if s.Succeeded != 2 {
			t.Fatalf("[DONE]+%q: %d of 2 succeeded, error %q", pad, s.Succeeded, out[0].Error)
		}
	}
}

// TestChunkNumbers: a bad chunk is named by its place among the stream's
// data events, as in the raw body (--save-raw), where chat's role-only
// first chunk counts though it is no content chunk.
func TestChunkNumbers(t *testing.T) {
	for _, ep := range []Endpoint{Chat, Completions} {
		for fault, bad := range map[replaytest.Fault]func(data string) bool{
			replaytest.EmptyChoices: func(d string) bool { return strings.Contains(d, `"choices":[]`) && !strings.Contains(d, "usage") },
			replaytest.BadChunk:     func(d string) bool { return !json.Valid([]byte(d)) },
		} {
			srv := replaytest.New(replaytest.Options{Fault: always(fault)})
			cfg := testConfig(srv)
			cfg.Endpoint, cfg.SaveRaw = ep, t.TempDir()
			_, out := runRows(t, cfg, rows(1, 0, 40, 5))
			srv.Close()
			files, _ := filepath.Glob(filepath.Join(cfg.SaveRaw, "*"))
			if len(files) != 1 {
				t.Fatalf("%d raw files", len(files))
			}
			raw, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			n, at := 0, 0
			var sp sse.Splitter
			sp.Feed(raw, func(_, data []byte) bool {
				n++
				if at == 0 && bad(string(data)) {
					at = n
				}
				return true
			})
			m := regexp.MustCompile(`chunk (\d+)\b`).FindStringSubmatch(out[0].Error)
			if at == 0 || m == nil || m[1] != strconv.Itoa(at) {
				t.Errorf("endpoint %v, fault %d: error %q does not name chunk %d of the raw stream", ep, fault, out[0].Error, at)
			}
		}
	}
}
