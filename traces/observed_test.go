package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// token_times_ns are observed times too: none may lie before the send (or
// the arrival), which would make a TTFT negative where it is taken from
// the first token's time (calibration) and an ITL straddle the send.
func TestTokenTimeBeforeSendRefused(t *testing.T) {
	for _, tc := range []struct {
		ext, in, want string
	}{
		{".csv", "arrival_ns,prompt_tokens,output_tokens,scheduled_send_ns,actual_send_ns,first_token_ns,last_token_ns,token_times_ns,http_status\n" +
			"100,1,2,100,110,150,200,50 200,200\n", "token_times_ns 50 is before scheduled_send_ns 100"},
		{".jsonl", `{"arrival_ns":1000,"prompt_tokens":1,"output_tokens":2,"http_status":200,"first_token_ns":1500,"last_token_ns":2000,"token_times_ns":[1500,999]}` + "\n",
			"token_times_ns 999 is before arrival_ns 1000"},
	} {
		path := filepath.Join(t.TempDir(), "t"+tc.ext)
		os.WriteFile(path, []byte(tc.in), 0o644)
		_, rows, err := ReadAll(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 2") && tc.ext == ".csv" {
			t.Errorf("%s: %d rows, err = %v; want an error on the line saying %q", tc.ext, len(rows), err, tc.want)
		}
	}
	// Writers refuse such a row too.
	r := &Request{}
	r.Reset()
	r.Arrival, r.PromptTokens, r.OutputTokens = 100, 1, 1
	r.HTTPStatus, r.FirstToken, r.LastToken, r.TokenTimes = 200, 150, 150, []int64{90}
	if err := WriteAll(filepath.Join(t.TempDir(), "o.parquet"), Meta{}, []*Request{r}); err == nil || !strings.Contains(err.Error(), "token_times_ns 90 is before arrival_ns 100") {
		t.Errorf("write: err = %v, want token_times_ns 90 is before arrival_ns 100", err)
	}
}

// token_times_ns are in the order the tokens came: a time before the
// previous token's would make an inter-token latency negative.
func TestTokenTimesOutOfOrderRefused(t *testing.T) {
	for _, tc := range []struct{ ext, in, line string }{
		{".csv", "arrival_ns,prompt_tokens,output_tokens,first_token_ns,last_token_ns,token_times_ns,http_status\n" +
			"100,1,3,150,300,150 300 200,200\n", "line 2"},
		{".jsonl", `{"arrival_ns":100,"prompt_tokens":1,"output_tokens":3,"http_status":200,"first_token_ns":150,"last_token_ns":300,"token_times_ns":[150,300,200]}` + "\n",
			"line 1"},
	} {
		path := filepath.Join(t.TempDir(), "t"+tc.ext)
		os.WriteFile(path, []byte(tc.in), 0o644)
		_, rows, err := ReadAll(path)
		want := "token_times_ns 200 (token 3) is before the previous token's 300"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%s: %d rows, err = %v; want an error on %s saying %q", tc.ext, len(rows), err, tc.line, want)
		}
	}
	r := &Request{}
	r.Reset()
	r.Arrival, r.PromptTokens, r.OutputTokens = 100, 1, 2
	r.HTTPStatus, r.FirstToken, r.LastToken, r.TokenTimes = 200, 150, 300, []int64{300, 150}
	if err := WriteAll(filepath.Join(t.TempDir(), "o.parquet"), Meta{}, []*Request{r}); err == nil || !strings.Contains(err.Error(), "row 1: token_times_ns 150 (token 2) is before the previous token's 300") {
		t.Errorf("write: err = %v, want row 1: token_times_ns 150 (token 2) is before the previous token's 300", err)
	}
	// Equal times (tokens one chunk carried together) are fine.
	r.TokenTimes = []int64{150, 300, 300}
	if err := WriteAll(filepath.Join(t.TempDir(), "o.parquet"), Meta{}, []*Request{r}); err != nil {
		t.Errorf("write of equal token times: %v", err)
	}
}

// Observed times are ns from the trace start: a scheduled_send_ns before
// it (a slice that re-based an issue before the window) was read as a
// send due before the trace began, every later time checked against it.
func TestNegativeScheduledSendRefused(t *testing.T) {
	const want = "scheduled_send_ns -1000000 is negative"
	for _, tc := range []struct{ ext, in, line string }{
		{".csv", "arrival_ns,prompt_tokens,output_tokens,scheduled_send_ns,actual_send_ns,first_token_ns,last_token_ns,http_status\n" +
			"0,1,1,-1000000,0,1000,2000,200\n", "line 2"},
		{".jsonl", `{"arrival_ns":0,"prompt_tokens":1,"output_tokens":1,"http_status":200,"scheduled_send_ns":-1000000,"first_token_ns":1000,"last_token_ns":2000}` + "\n",
			"line 1"},
	} {
		path := filepath.Join(t.TempDir(), "t"+tc.ext)
		os.WriteFile(path, []byte(tc.in), 0o644)
		_, rows, err := ReadAll(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%s: %d rows, err = %v; want an error on %s saying %q", tc.ext, len(rows), err, tc.line, want)
		}
	}
	r := &Request{}
	r.Reset()
	r.PromptTokens, r.OutputTokens, r.HTTPStatus = 1, 1, 200
	r.ScheduledSend, r.FirstToken, r.LastToken = -1000000, 1000, 2000
	if err := WriteAll(filepath.Join(t.TempDir(), "o.parquet"), Meta{}, []*Request{r}); err == nil || !strings.Contains(err.Error(), "row 1: "+want) {
		t.Errorf("write: err = %v, want row 1: %s", err, want)
	}
}
