package traces

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// Corrupt input must give an error, never crash the process. arrow-go
// panics on some malformed input (most of which its readers recover
// themselves; RecoverPanic catches the rest at our boundary), but two
// kinds of damage it cannot survive: a length in an Arrow schema that asks
// make for more memory than there is (a fatal error, not a panic), and a
// buffer size that does the same through the allocator. The schema checks
// below walk the schema's flatbuffer before arrow-go does, and
// cappedAllocator turns an absurd allocation into a panic the IPC
// reader recovers.

// ErrCorrupt wraps what RecoverPanic catches.
var ErrCorrupt = errors.New("corrupt file")

// RecoverPanic turns a panic inside the Parquet or Arrow libraries into an
// error in *err, for traces and other Parquet files alike. Use it deferred.
func RecoverPanic(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: reader failed: %v", ErrCorrupt, p)
	}
}

// maxAlloc bounds one allocation while reading: no legitimate buffer of a
// trace comes near it (writers keep a batch's strings under 1 GiB).
const maxAlloc = 4 << 30

// allocLimit bounds one allocation while reading an IPC file of size
// bytes. A compressed buffer decompresses to the length its first 8 bytes
// declare, which a corrupt file sets to anything (gigabytes from a 16 KB
// file). A real trace's buffers stay under 256 MiB, or under 1,024 times
// the size of a larger file: a batch's fixed-width columns take at most 8
// bytes a row, and its text compresses far less than 1,024 times.
func allocLimit(size int64) int {
	return int(min(maxAlloc, max(256<<20, 1024*size)))
}

// cappedAllocator panics rather than asking for more than max bytes.
type cappedAllocator struct {
	memory.Allocator
	max int
}

func (a cappedAllocator) Allocate(n int) []byte {
	a.check(n)
	return a.Allocator.Allocate(n)
}

func (a cappedAllocator) Reallocate(n int, b []byte) []byte {
	a.check(n)
	return a.Allocator.Reallocate(n, b)
}

func (a cappedAllocator) check(n int) {
	if n < 0 || n > a.max {
		panic(fmt.Sprintf("corrupt file: it asks for a buffer of %d bytes, over the %d its size allows", n, a.max))
	}
}

// UnreadableParquetError is a failure every reader of a Parquet file
// meets alike, whatever the file holds: its footer or its stored Arrow
// schema does not read.
type UnreadableParquetError struct{ err error }

func (e *UnreadableParquetError) Error() string { return e.err.Error() }
func (e *UnreadableParquetError) Unwrap() error { return e.err }

// OpenParquetFile opens path as a Parquet file and checks the Arrow schema
// it stores before pqarrow decodes it, for traces and other Parquet files
// alike; either failing is an *UnreadableParquetError.
func OpenParquetFile(path string, props *parquet.ReaderProperties) (*file.Reader, error) {
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(props))
	if err != nil {
		return nil, &UnreadableParquetError{fmt.Errorf("not a readable Parquet file: %w", err)}
	}
	if err := checkParquetArrowSchema(pf.MetaData().KeyValueMetadata().FindValue("ARROW:schema")); err != nil {
		pf.Close()
		return nil, &UnreadableParquetError{err}
	}
	return pf, nil
}

// checkParquetArrowSchema checks the Arrow schema pqarrow stores in a
// Parquet file's key-value metadata (base64 of an IPC schema message),
// decoding it as pqarrow does (which refuses what does not decode);
// absent is fine.
func checkParquetArrowSchema(serialized *string) error {
	if serialized == nil {
		return nil
	}
	var b []byte
	var err error
	if len(*serialized)%4 == 0 {
		b, err = base64.StdEncoding.DecodeString(*serialized)
	}
	if len(b) == 0 || err != nil {
		b, err = base64.RawStdEncoding.DecodeString(*serialized)
	}
	if err != nil {
		return fmt.Errorf("stored Arrow schema: not base64: %w", err)
	}
	if err := checkSchemaMessage(b); err != nil {
		return fmt.Errorf("stored Arrow schema: %w", err)
	}
	return nil
}

// checkIPCSchema checks the schema of an Arrow IPC file (in its footer)
// or stream (its first message) of the given size.
func checkIPCSchema(f *os.File, size int64, isFile bool) error {
	if isFile {
		// The file ends with the footer, its int32 length and "ARROW1".
		const tail = 10
		if size < tail+8 {
			return nil // arrow-go reports it
		}
		lb := make([]byte, 4)
		if _, err := f.ReadAt(lb, size-tail); err != nil {
			return err
		}
		n := int64(int32(binary.LittleEndian.Uint32(lb)))
		if n <= 0 || n > size-tail {
			return nil // arrow-go reports it
		}
		footer := make([]byte, n)
		if _, err := f.ReadAt(footer, size-tail-n); err != nil {
			return err
		}
		if err := checkFooter(footer); err != nil {
			return fmt.Errorf("footer: %w", err)
		}
		return nil
	}
	// The stream starts with the schema message: 0xFFFFFFFF, an int32
	// length and the message (or, before Arrow 0.15, just the length).
	head := make([]byte, 8)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil // too short: arrow-go reports it
	}
	start, n := int64(4), int64(int32(binary.LittleEndian.Uint32(head)))
	if binary.LittleEndian.Uint32(head) == 0xFFFFFFFF {
		start, n = 8, int64(int32(binary.LittleEndian.Uint32(head[4:])))
	}
	if n <= 0 || n > size-start {
		return nil // arrow-go reports it
	}
	msg := make([]byte, n)
	if _, err := f.ReadAt(msg, start); err != nil && err != io.EOF {
		return err
	}
	if err := verifyMessage(msg); err != nil {
		return fmt.Errorf("schema message: %w", err)
	}
	return nil
}

// checkSchemaMessage checks one framed IPC message holding a schema.
func checkSchemaMessage(b []byte) error {
	if len(b) < 8 {
		return nil
	}
	start, n := 4, int64(int32(binary.LittleEndian.Uint32(b)))
	if binary.LittleEndian.Uint32(b) == 0xFFFFFFFF {
		start, n = 8, int64(int32(binary.LittleEndian.Uint32(b[4:])))
	}
	if n <= 0 || n > int64(len(b)-start) {
		return fmt.Errorf("message length %d outside the %d bytes there are", n, len(b)-start)
	}
	m := b[start : start+int(n)]
	if err := verifyMessage(m); err != nil {
		return err
	}
	// arrow-go allocates the body the message declares (its bodyLength,
	// slot 3) before reading it.
	v := newFBVerifier(m)
	t, _ := v.root() // verifyMessage read it
	p, err := v.field(t, 3, 8)
	if err != nil || p == 0 {
		return err
	}
	if body, rest := binary.LittleEndian.Uint64(m[p:]), len(b)-start-int(n); body > uint64(rest) {
		return fmt.Errorf("message body of %d bytes outside the %d bytes there are", int64(body), rest)
	}
	return nil
}

func verifyMessage(b []byte) error {
	v := newFBVerifier(b)
	t, err := v.root()
	if err != nil {
		return err
	}
	// Message: version, header_type, header, bodyLength, custom_metadata.
	if err := v.keyValues(t, 4); err != nil {
		return err
	}
	if v.u8(t, 1) != 1 { // not a Schema: arrow-go reports it
		return nil
	}
	h, err := v.tableField(t, 2)
	if err != nil || h == nil {
		return err
	}
	return v.schema(*h)
}

func checkFooter(b []byte) error {
	v := newFBVerifier(b)
	t, err := v.root()
	if err != nil {
		return err
	}
	// Footer: version, schema, dictionaries, recordBatches, custom_metadata.
	for _, slot := range []int{2, 3} {
		if _, _, err := v.vector(t, slot, 24); err != nil {
			return err
		}
	}
	if err := v.keyValues(t, 4); err != nil {
		return err
	}
	s, err := v.tableField(t, 1)
	if err != nil || s == nil {
		return err
	}
	return v.schema(*s)
}

// fbVerifier checks that every table, vector and string of the Arrow
// schema tables that arrow-go reads lies within the buffer. It bounds the
// tables it visits and the nesting depth, so shared or deep children cannot
// make it (or arrow-go after it) run long.
type fbVerifier struct {
	b      []byte
	budget int
}

// fbTable is a table's position and its vtable's.
type fbTable struct{ pos, vt, vtLen int }

const maxFieldDepth = 64

var errFlatbuffer = errors.New("malformed flatbuffer")

func newFBVerifier(b []byte) *fbVerifier { return &fbVerifier{b: b, budget: len(b)/4 + 16} }

func (v *fbVerifier) in(pos, n int) bool {
	return pos >= 0 && n >= 0 && pos <= len(v.b) && n <= len(v.b)-pos
}

func (v *fbVerifier) root() (fbTable, error) {
	if !v.in(0, 4) {
		return fbTable{}, errFlatbuffer
	}
	return v.table(int(binary.LittleEndian.Uint32(v.b)))
}

func (v *fbVerifier) table(pos int) (fbTable, error) {
	if v.budget--; v.budget < 0 {
		return fbTable{}, fmt.Errorf("%w: too many tables", errFlatbuffer)
	}
	if !v.in(pos, 4) {
		return fbTable{}, fmt.Errorf("%w: table at %d outside %d bytes", errFlatbuffer, pos, len(v.b))
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(v.b[pos:])))
	if !v.in(vt, 4) {
		return fbTable{}, fmt.Errorf("%w: vtable at %d outside %d bytes", errFlatbuffer, vt, len(v.b))
	}
	vtLen := int(binary.LittleEndian.Uint16(v.b[vt:]))
	tLen := int(binary.LittleEndian.Uint16(v.b[vt+2:]))
	if vtLen < 4 || vtLen%2 != 0 || !v.in(vt, vtLen) || !v.in(pos, tLen) {
		return fbTable{}, fmt.Errorf("%w: table at %d: bad vtable", errFlatbuffer, pos)
	}
	return fbTable{pos, vt, vtLen}, nil
}

// field returns the position of a table's field, or 0 if absent.
func (v *fbVerifier) field(t fbTable, slot, size int) (int, error) {
	o := 4 + 2*slot
	if o+2 > t.vtLen {
		return 0, nil
	}
	off := int(binary.LittleEndian.Uint16(v.b[t.vt+o:]))
	if off == 0 {
		return 0, nil
	}
	if !v.in(t.pos+off, size) {
		return 0, fmt.Errorf("%w: field %d of the table at %d outside %d bytes", errFlatbuffer, slot, t.pos, len(v.b))
	}
	return t.pos + off, nil
}

func (v *fbVerifier) u8(t fbTable, slot int) byte {
	p, err := v.field(t, slot, 1)
	if err != nil || p == 0 {
		return 0
	}
	return v.b[p]
}

// indirect follows the offset stored in a field.
func (v *fbVerifier) indirect(t fbTable, slot int) (int, error) {
	p, err := v.field(t, slot, 4)
	if err != nil || p == 0 {
		return 0, err
	}
	q := int64(p) + int64(binary.LittleEndian.Uint32(v.b[p:]))
	if q > math.MaxInt32 || !v.in(int(q), 4) {
		return 0, fmt.Errorf("%w: offset at %d leads outside %d bytes", errFlatbuffer, p, len(v.b))
	}
	return int(q), nil
}

func (v *fbVerifier) tableField(t fbTable, slot int) (*fbTable, error) {
	q, err := v.indirect(t, slot)
	if err != nil || q == 0 {
		return nil, err
	}
	s, err := v.table(q)
	return &s, err
}

// vector returns the position of the first element and the length of a
// vector field of elements size bytes each (0, 0 if absent).
func (v *fbVerifier) vector(t fbTable, slot, size int) (int, int, error) {
	q, err := v.indirect(t, slot)
	if err != nil || q == 0 {
		return 0, 0, err
	}
	n := int64(binary.LittleEndian.Uint32(v.b[q:]))
	if n*int64(size) > int64(len(v.b)-q-4) {
		return 0, 0, fmt.Errorf("%w: vector of %d elements at %d outside %d bytes", errFlatbuffer, n, q, len(v.b))
	}
	return q + 4, int(n), nil
}

// tables checks a vector of tables with check.
func (v *fbVerifier) tables(t fbTable, slot int, check func(fbTable) error) error {
	start, n, err := v.vector(t, slot, 4)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		p := start + 4*i
		e, err := v.table(p + int(binary.LittleEndian.Uint32(v.b[p:])))
		if err != nil {
			return err
		}
		if err := check(e); err != nil {
			return err
		}
	}
	return nil
}

func (v *fbVerifier) keyValues(t fbTable, slot int) error {
	return v.tables(t, slot, func(kv fbTable) error {
		for _, s := range []int{0, 1} { // key, value
			if _, _, err := v.vector(kv, s, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// schema checks a Schema: endianness, fields, custom_metadata, features.
func (v *fbVerifier) schema(t fbTable) error {
	if _, _, err := v.vector(t, 3, 8); err != nil {
		return err
	}
	if err := v.keyValues(t, 2); err != nil {
		return err
	}
	return v.tables(t, 1, func(f fbTable) error { return v.arrowField(f, 0) })
}

// arrowField checks a Field: name, nullable, type_type, type, dictionary,
// children, custom_metadata.
func (v *fbVerifier) arrowField(t fbTable, depth int) error {
	if depth > maxFieldDepth {
		return fmt.Errorf("%w: fields nested over %d deep", errFlatbuffer, maxFieldDepth)
	}
	if _, _, err := v.vector(t, 0, 1); err != nil {
		return err
	}
	typ, err := v.tableField(t, 3)
	if err != nil {
		return err
	}
	if typ != nil {
		switch v.u8(t, 2) {
		case 10: // Timestamp: unit, timezone
			_, _, err = v.vector(*typ, 1, 1)
		case 14: // Union: mode, typeIds
			_, _, err = v.vector(*typ, 1, 4)
		}
		if err != nil {
			return err
		}
	}
	dict, err := v.tableField(t, 4)
	if err != nil {
		return err
	}
	if dict != nil { // DictionaryEncoding: id, indexType, ...
		if _, err := v.tableField(*dict, 1); err != nil {
			return err
		}
	}
	if err := v.keyValues(t, 6); err != nil {
		return err
	}
	return v.tables(t, 5, func(c fbTable) error { return v.arrowField(c, depth+1) })
}
