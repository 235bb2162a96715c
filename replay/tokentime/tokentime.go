// Package tokentime times a stream's output tokens from the chunks that
// carried them, for record and the recording proxy alike, so that both
// give the same token times for the same stream.
package tokentime

import "math"

// Chunk is one content chunk: when it arrived, its text length, and the
// cumulative completion tokens if the chunk carried usage (else -1).
type Chunk struct {
	At    int64
	Bytes int32
	Cum   int32
}

// Spread appends one time per usage token to dst. Tokens are
// apportioned to chunks by the server's per-chunk cumulative usage when
// every chunk carried it (the tokens after the last chunk's count, which
// had no text, are the last chunk's), else in proportion to chunk text length, with at
// least one token per chunk when there are at least as many tokens as
// chunks, and for the first and the last chunk when there are fewer. A
// chunk's tokens are spread evenly across the gap since the previous
// chunk, the last at the chunk's own arrival; the first chunk's tokens all get its
// arrival time (nothing was seen before it). A total past int32, which no
// trace row holds, gets no times.
func Spread(dst []int64, chunks []Chunk, total int) []int64 {
	// int32(total) below must not wrap a total into range.
	if total <= 0 || total > math.MaxInt32 || len(chunks) == 0 {
		return dst
	}
	// The last content chunk's count may fall short of the total: tokens
	// with no text came after it (the EOS, in vLLM's last chunk with empty
	// content). They are the last chunk's, and the counts stay exact.
	exact := chunks[len(chunks)-1].Cum <= int32(total)
	for i, c := range chunks {
		// Text with no new token is a count that does not match the text.
		if c.Cum < 1 || (i > 0 && c.Cum <= chunks[i-1].Cum) {
			exact = false
			break
		}
	}
	var wsum, wcum int64
	for _, c := range chunks {
		wsum += int64(max(c.Bytes, 1))
	}
	// Proportional apportionment by cumulative rounding, clamped so that
	// every chunk gets a token while there are enough to go round.
	lo := 0
	if total >= len(chunks) {
		lo = 1
	}
	prev, prevCum := 0, int32(0)
	for i, c := range chunks {
		var n int
		if exact {
			cum := c.Cum
			if i == len(chunks)-1 {
				cum = int32(total)
			}
			n, prevCum = int(cum-prevCum), cum
		} else {
			wcum += int64(max(c.Bytes, 1))
			cum := int((int64(total)*wcum*2 + wsum) / (wsum * 2)) // round(total × wcum / wsum)
			low, high := prev+lo, total-lo*(len(chunks)-1-i)
			// With fewer tokens than chunks, the first and the last chunk
			// still get one each: first_token_ns and last_token_ns are
			// their arrivals, and the gaps must add up to the time between.
			if i == 0 {
				low = max(low, 1)
			}
			if i < len(chunks)-1 && total >= 2 {
				high = min(high, total-1)
			}
			cum = min(max(cum, low), high)
			n, prev = cum-prev, cum
		}
		if i == 0 {
			for j := 0; j < n; j++ {
				dst = append(dst, c.At)
			}
			continue
		}
		from, gap := chunks[i-1].At, c.At-chunks[i-1].At
		for j := 1; j <= n; j++ {
			dst = append(dst, from+gap*int64(j)/int64(n))
		}
	}
	return dst
}
