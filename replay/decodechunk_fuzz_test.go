package replay

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeChunk: decodeChunk never panics on a chunk the server sends.
// It returns no problem, or one line of valid UTF-8 of kind stream_error
// or bad_stream (an undecodable chunk named by its place); a chunk it
// takes, encoding/json takes too with as many choices, and the text it
// keeps is as long as the text it counts. Seeds:
// testdata/fuzz/FuzzDecodeChunk.
func FuzzDecodeChunk(f *testing.F) {
	for _, c := range chunkSeeds {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var cs chunkScan
		var keep strings.Builder
		const n = 7
		problem := decodeChunk([]byte(data), &cs, n, &keep)
		if problem != "" {
			checkChunkProblem(t, data, problem, n)
			return
		}
		if cs.text != keep.Len() {
			t.Fatalf("decodeChunk(%q): counted %d bytes of text, kept %d", data, cs.text, keep.Len())
		}
		var ch wireChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("decodeChunk(%q) took it; encoding/json: %v", data, err)
		}
		if len(ch.Choices) != cs.choices {
			t.Fatalf("decodeChunk(%q): %d choices; encoding/json %d", data, cs.choices, len(ch.Choices))
		}
	})
}

// checkChunkProblem fails unless problem is one valid line of a stream
// kind, and an undecodable chunk's names its place n.
func checkChunkProblem(t *testing.T, data, problem string, n int) {
	t.Helper()
	if !utf8.ValidString(problem) || strings.ContainsAny(problem, "\n\r") {
		t.Fatalf("decodeChunk(%q) = %q: want one line of valid UTF-8", data, problem)
	}
	switch ErrorKind(problem) {
	case KindStreamError:
	case KindBadStream:
		if !strings.Contains(problem, "chunk "+strconv.Itoa(n)) {
			t.Fatalf("decodeChunk(%q) = %q: want the chunk's place %d named", data, problem, n)
		}
	default:
		t.Fatalf("decodeChunk(%q) = %q: want kind %s or %s", data, problem, KindStreamError, KindBadStream)
	}
}
