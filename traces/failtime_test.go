package traces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failed_ns, when a failed request's failure was seen, round-trips
// through every format, and stays null on the rows without it.
func TestFailTimeRoundTrips(t *testing.T) {
	failed := &Request{}
	failed.Reset()
	failed.ID, failed.Arrival, failed.PromptTokens, failed.OutputTokens = "f", 100, 4, 8
	failed.ScheduledSend, failed.ActualSend, failed.HTTPStatus = 100, 110, 200
	failed.Error, failed.FailTime = "stream: connection reset", 25_000_000
	ok := &Request{}
	ok.Reset()
	ok.ID, ok.Arrival, ok.PromptTokens, ok.OutputTokens = "ok", 200, 4, 1
	ok.HTTPStatus, ok.FirstToken, ok.LastToken, ok.TokenTimes = 200, 300, 300, []int64{300}
	literal := &Request{ID: "lit", Arrival: 300, PromptTokens: 1, OutputTokens: 1} // FailTime 0, but no error
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".csv", ".jsonl"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		if err := WriteAll(path, Meta{}, []*Request{failed, ok, literal}); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		_, rows, err := ReadAll(path)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(rows) != 3 || rows[0].FailTime != 25_000_000 || rows[1].FailTime != Missing || rows[2].FailTime != Missing {
			t.Fatalf("%s: read back %d rows, failed_ns %d, %d, %d; want 25000000 and two nulls", ext, len(rows), rows[0].FailTime, rows[1].FailTime, rows[2].FailTime)
		}
	}
}

// failed_ns belongs to failed rows only, and is a time like the others.
func TestFailTimeChecked(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"arrival_ns,prompt_tokens,output_tokens,http_status,failed_ns\n100,1,2,200,500\n", "line 2: failed_ns 500 on a row without error"},
		{"arrival_ns,prompt_tokens,output_tokens,error,failed_ns\n100,1,2,timeout,50\n", "line 2: failed_ns 50 is before arrival_ns 100"},
	} {
		path := filepath.Join(t.TempDir(), "t.csv")
		os.WriteFile(path, []byte(tc.in), 0o644)
		if _, _, err := ReadAll(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

// A window re-based to its start moves failed_ns with the other times.
func TestSliceShiftsFailTime(t *testing.T) {
	f := &Request{}
	f.Reset()
	f.ID, f.Arrival, f.PromptTokens, f.OutputTokens = "f", 100, 1, 1
	f.ScheduledSend, f.ActualSend, f.Error, f.FailTime = 100, 110, "stream: connection reset", 500
	rows := drain(t, Slice(&sliceReader{rows: []*Request{f}}, 50, 0, 0))
	if len(rows) != 1 || rows[0].ActualSend != 60 || rows[0].FailTime != 450 {
		t.Errorf("%d rows; actual_send_ns %d, failed_ns %d; want 60 and 450, re-based by 50", len(rows), rows[0].ActualSend, rows[0].FailTime)
	}
}
