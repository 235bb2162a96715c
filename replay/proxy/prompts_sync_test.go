package proxy

import (
	"testing"
	"time"
)

// syncLog records the calls made on the prompts file.
type syncLog struct {
	promptsFile
	calls []string
}

func (s *syncLog) Write(b []byte) (int, error) {
	s.calls = append(s.calls, "write")
	return s.promptsFile.Write(b)
}
func (s *syncLog) Sync() error  { s.calls = append(s.calls, "sync"); return s.promptsFile.Sync() }
func (s *syncLog) Close() error { s.calls = append(s.calls, "close"); return s.promptsFile.Close() }

// The prompts file is as durable on Close as the trace, which is fsynced
// before it is renamed into place: prompts written since the last flush
// tick were closed unsynced, and a crash could keep the rows without them.
func TestPromptsSyncedOnClose(t *testing.T) {
	r := newRig(t, ".parquet", func(c *Config) { c.KeepPrompts, c.FlushInterval = true, time.Hour })
	log := &syncLog{promptsFile: r.p.prompts}
	r.p.prompts = log
	r.post(t, "/v1/completions", `{"model":"m","prompt":"once upon a time"}`) // flushed: the first
	r.post(t, "/v1/completions", `{"model":"m","prompt":"there was a proxy"}`)
	r.finish(t)
	n := len(log.calls)
	if n < 3 || log.calls[n-3] != "write" || log.calls[n-2] != "sync" || log.calls[n-1] != "close" {
		t.Errorf("calls on the prompts file: %v, want the last write synced before close", log.calls)
	}
}
