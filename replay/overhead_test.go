package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// A text model whose overhead is below 0 (calibrated on an engine that
// adds no BOS) is valid with the prefix unknown, and Record, which
// validates again after calibrating, replays with it.
func TestNegativeOverheadWithUnknownPrefix(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model = "http://h/v1", "m"
	cfg.Text = TextModel{TokensPerByte: 0.25, Overhead: -1}
	if err := cfg.Validate(); err != nil {
		t.Errorf("overhead -1, prefix unknown: %v", err)
	}
	cfg.Text.Prefix = 2
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Prefix") {
		t.Errorf("prefix 2 beyond overhead -1: error %v, want one naming Prefix", err)
	}

	// Every 4 bytes of text are a token, less one: the fit's intercept is -1.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", len(req.Prompt)/4-1)
	}))
	defer srv.Close()
	dir := t.TempDir()
	rc := testConfig(nil)
	rc.BaseURL, rc.Endpoint, rc.Text = srv.URL+"/v1", Completions, TextModel{}
	rc.Trace = writeTrace(t, dir, "in.jsonl", rows(2, 0, 100, 1))
	rc.Out = filepath.Join(dir, "out.jsonl")
	sums, err := Record(t.Context(), rc, nil)
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	if sums[0].Text.Overhead >= 0 || sums[0].Succeeded != 2 {
		t.Errorf("text model %+v, %d of 2 succeeded; want a negative overhead and both sent", sums[0].Text, sums[0].Succeeded)
	}
}
