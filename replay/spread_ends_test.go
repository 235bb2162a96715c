package replay

import "testing"

// Token times run from the first content chunk to the last, as
// first_token_ns and last_token_ns do, whatever the usage count: else the
// gaps (ITL) would not add up to last − first, which TPOT divides. A usage
// count below the chunks seen (a server that splits a token's text) must
// still put the last token where the last text arrived.
func TestSpreadTokensEndAtTheLastChunk(t *testing.T) {
	ch := func(at int64, bytes int32) chunkRec { return chunkRec{at: at, bytes: bytes, cum: -1} }
	for _, c := range []struct {
		chunks []chunkRec
		total  int
	}{
		{[]chunkRec{ch(100, 1), ch(200, 1), ch(300, 1), ch(400, 1)}, 2},
		{[]chunkRec{ch(100, 1), ch(200, 1), ch(300, 1), ch(400, 1)}, 3},
		{[]chunkRec{ch(100, 1), ch(200, 9), ch(300, 9), ch(400, 1)}, 2},
		{[]chunkRec{ch(100, 9), ch(200, 1), ch(300, 1)}, 2},
		{[]chunkRec{ch(100, 1), ch(200, 1), ch(300, 1)}, 5},
		// Per-chunk usage that gives a chunk of text no token.
		{[]chunkRec{{100, 1, 0}, {200, 1, 2}}, 2},
		{[]chunkRec{{100, 1, 1}, {200, 1, 2}, {300, 1, 2}}, 2},
	} {
		got := spreadTokens(nil, c.chunks, c.total)
		first, last := c.chunks[0].at, c.chunks[len(c.chunks)-1].at
		if len(got) != c.total || got[0] != first || got[len(got)-1] != last {
			t.Errorf("%d tokens over chunks %v: times %v, want %d from %d to %d", c.total, c.chunks, got, c.total, first, last)
		}
	}
}
