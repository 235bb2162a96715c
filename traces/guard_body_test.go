package traces

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// A Parquet file's stored Arrow schema whose message declares a body of
// 40 GiB that is not there is refused: arrow-go would allocate the body
// before reading it, a fatal out-of-memory error that no recover catches.
func TestStoredSchemaBodyPastItsBytes(t *testing.T) {
	// A Message flatbuffer with only bodyLength (slot 3) set.
	msg := make([]byte, 32)
	binary.LittleEndian.PutUint32(msg[0:], 16) // the root table
	for i, v := range []uint16{12, 16, 0, 0, 0, 8} {
		binary.LittleEndian.PutUint16(msg[4+2*i:], v) // the vtable: its size, the table's, slots 0-3
	}
	binary.LittleEndian.PutUint32(msg[16:], 12) // the table's offset back to its vtable
	for _, body := range []uint64{40 << 30, 1} {
		binary.LittleEndian.PutUint64(msg[24:], body)
		framed := binary.LittleEndian.AppendUint32([]byte{0xff, 0xff, 0xff, 0xff}, uint32(len(msg)))
		stored := base64.StdEncoding.EncodeToString(append(framed, msg...))
		if err := checkParquetArrowSchema(&stored); err == nil || !strings.Contains(err.Error(), "body") {
			t.Errorf("a body of %d bytes after the message, none there: %v, want an error about the body", body, err)
		}
	}
}
