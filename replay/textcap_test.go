package replay

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/replay/replaytest"
)

// The kept text is bounded as a saved raw body is: a server streaming huge
// content within the chunk bound would otherwise grow it until the
// timeout. The row stays measured, and its text says where it was cut.
func TestKeptTextIsBounded(t *testing.T) {
	defer func(n int) { maxTextBytes = n }(maxTextBytes)
	maxTextBytes = 10
	srv := replaytest.New(replaytest.Options{TokensPerChunk: 3})
	defer srv.Close()
	for _, keep := range []bool{false, true} {
		cfg := testConfig(srv)
		cfg.KeepText = keep
		_, out := runRows(t, cfg, rows(1, 0, 40, 40))
		r := out[0]
		if !r.Succeeded() || r.UsageOutput != 40 || r.Chunks != 14 {
			t.Fatalf("keep text %v: row not measured in full: error %q, %d tokens, %d chunks", keep, r.Error, r.UsageOutput, r.Chunks)
		}
		want := ""
		if keep {
			want = "abcdefghij… [servesim: output text cut at 10 of 40 bytes]"
		}
		if r.OutputText != want {
			t.Errorf("keep text %v: output text %q, want %q", keep, r.OutputText, want)
		}
		if TextCut(r.OutputText) != keep {
			t.Errorf("keep text %v: TextCut(%q) = %v, want %v", keep, r.OutputText, !keep, keep)
		}
	}
}

// A cut never splits a character: the text stays what was generated, up
// to the cut.
func TestKeepTextCutsBetweenCharacters(t *testing.T) {
	defer func(n int) { maxTextBytes = n }(maxTextBytes)
	maxTextBytes = 3
	var b strings.Builder
	keepText(&b, "aж")
	keepText(&b, "bc")
	if got := b.String(); got != "aж" {
		t.Errorf("kept %q, want %q", got, "aж")
	}
	b.Reset()
	keepText(&b, "abж")
	if got := b.String(); got != "ab" {
		t.Errorf("kept %q, want %q", got, "ab")
	}
}

// Only the mark keptText ends a cut text with says it was cut: a whole
// answer that quotes it elsewhere, or ends with another count, was not.
func TestTextCutKnowsTheMark(t *testing.T) {
	for text, want := range map[string]bool{
		keptText("abc", 3):  false,
		keptText("abc", 40): true,
		keptText("", 7):     true,
		"… [servesim: output text cut at 3 of 40 bytes] and more": false,
		"… [servesim: output text cut at x of 40 bytes]":          false,
	} {
		if got := TextCut(text); got != want {
			t.Errorf("TextCut(%q) = %v, want %v", text, got, want)
		}
	}
}
