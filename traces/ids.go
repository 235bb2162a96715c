package traces

import (
	"strconv"
	"unsafe"
)

// idArena formats decimal request ids into shared blocks: one allocation
// per few hundred rows instead of one per row. Bytes are never rewritten
// once handed out, so the returned strings stay immutable and valid for as
// long as anyone holds them.
type idArena struct{ buf []byte }

func (a *idArena) itoa(n int) string {
	if cap(a.buf)-len(a.buf) < 20 { // room for any int64
		a.buf = make([]byte, 0, 4096)
	}
	start := len(a.buf)
	a.buf = strconv.AppendInt(a.buf, int64(n), 10)
	return unsafe.String(&a.buf[start], len(a.buf)-start)
}
