package tokentime

import (
	"slices"
	"strconv"
	"testing"
)

func TestSpread(t *testing.T) {
	ch := func(at int64, bytes int32) Chunk { return Chunk{At: at, Bytes: bytes, Cum: -1} }
	cases := []struct {
		name   string
		chunks []Chunk
		total  int
		want   []int64
	}{
		{"one per chunk", []Chunk{ch(100, 1), ch(200, 1), ch(300, 1)}, 3, []int64{100, 200, 300}},
		{"several per chunk, spread over the gap", []Chunk{ch(100, 1), ch(400, 3)}, 4, []int64{100, 200, 300, 400}},
		{"first chunk's tokens at its arrival", []Chunk{ch(100, 2), ch(200, 2)}, 4, []int64{100, 100, 150, 200}},
		{"fewer tokens than chunks", []Chunk{ch(100, 1), ch(200, 1), ch(300, 1), ch(400, 1)}, 2, []int64{100, 400}},
		{"exact from per-chunk usage", []Chunk{{100, 9, 1}, {200, 1, 4}, {300, 1, 5}}, 5, []int64{100, 133, 166, 200, 300}},
		{"inconsistent per-chunk usage falls back", []Chunk{{100, 1, 1}, {200, 1, 9}}, 2, []int64{100, 200}},
		{"no tokens", []Chunk{ch(100, 1)}, 0, nil},
	}
	for _, c := range cases {
		got := Spread(nil, c.chunks, c.total)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v want %v", c.name, got, c.want)
		}
		if len(got) != c.total && c.total > 0 {
			t.Errorf("%s: %d times for %d tokens", c.name, len(got), c.total)
		}
	}
}

// Token times run from the first content chunk to the last, as
// first_token_ns and last_token_ns do, whatever the usage count: else the
// gaps (ITL) would not add up to last − first, which TPOT divides. A usage
// count below the chunks seen (a server that splits a token's text) must
// still put the last token where the last text arrived.
func TestSpreadEndAtTheLastChunk(t *testing.T) {
	ch := func(at int64, bytes int32) Chunk { return Chunk{At: at, Bytes: bytes, Cum: -1} }
	for _, c := range []struct {
		chunks []Chunk
		total  int
	}{
		{[]Chunk{ch(100, 1), ch(200, 1), ch(300, 1), ch(400, 1)}, 2},
		{[]Chunk{ch(100, 1), ch(200, 1), ch(300, 1), ch(400, 1)}, 3},
		{[]Chunk{ch(100, 1), ch(200, 9), ch(300, 9), ch(400, 1)}, 2},
		{[]Chunk{ch(100, 9), ch(200, 1), ch(300, 1)}, 2},
		{[]Chunk{ch(100, 1), ch(200, 1), ch(300, 1)}, 5},
		// Per-chunk usage that gives a chunk of text no token.
		{[]Chunk{{100, 1, 0}, {200, 1, 2}}, 2},
		{[]Chunk{{100, 1, 1}, {200, 1, 2}, {300, 1, 2}}, 2},
	} {
		got := Spread(nil, c.chunks, c.total)
		first, last := c.chunks[0].At, c.chunks[len(c.chunks)-1].At
		if len(got) != c.total || got[0] != first || got[len(got)-1] != last {
			t.Errorf("%d tokens over chunks %v: times %v, want %d from %d to %d", c.total, c.chunks, got, c.total, first, last)
		}
	}
}

// A total past int32 is no count a trace row holds: no times, rather than
// the total wrapped into range (2^32+1 is not 1) and the chunks' counts
// taken as exact for it.
func TestSpreadTotalPastInt32HasNoTimes(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("int holds no total past int32")
	}
	wide := int64(1<<32 + 1)
	total := int(wide)
	if got := Spread(nil, []Chunk{{At: 100, Bytes: 1, Cum: 1}}, total); got != nil {
		t.Errorf("%d tokens: %d times, want none", total, len(got))
	}
}
