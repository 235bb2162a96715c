package traces

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A compressed buffer whose declared length a corrupt file sets to 3 GiB
// is refused naming the file, without allocating anything near it.
func TestIPCCorruptBufferLengthAllocatesLittle(t *testing.T) {
	for _, ext := range []string{".arrow", ".arrows"} {
		path := filepath.Join(t.TempDir(), "t"+ext)
		if err := WriteAll(path, sampleMeta(), sampleRequests()); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A zstd frame starts with 28 B5 2F FD; the buffer's uncompressed
		// length (int64, little-endian) comes just before it.
		i := bytes.Index(b, []byte{0x28, 0xb5, 0x2f, 0xfd})
		if i < 8 {
			t.Fatalf("%s: no compressed buffer found", ext)
		}
		binary.LittleEndian.PutUint64(b[i-8:i], 3<<30)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := allocatedBy(func() error { _, _, err := ReadAll(path); return err })
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "corrupt file") {
			t.Errorf("%s: err = %v, want an error naming %s as corrupt", ext, err, path)
		}
		if a > 300<<20 {
			t.Errorf("%s: reading a %d-byte file allocated %d MiB", ext, len(b), a>>20)
		}
	}
}

// A stream whose first message claims 2 GiB of metadata is refused
// naming the file, by the plain and the tolerant reader alike, without
// allocating anything near it.
func TestIPCStreamCorruptMessageLengthAllocatesLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.arrows")
	if err := WriteAll(path, sampleMeta(), sampleRequests()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b) != 0xFFFFFFFF {
		t.Fatalf("stream starts % x, want a continuation marker", b[:8])
	}
	binary.LittleEndian.PutUint32(b[4:], 0x7FFFFFF0)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"ReadAll": func() error { _, _, err := ReadAll(path); return err },
		"OpenTolerant": func() error {
			r, err := OpenTolerant(path)
			if err == nil {
				r.Close()
			}
			return err
		},
	} {
		a, err := allocatedBy(read)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, path)
		}
		if a > 64<<20 {
			t.Errorf("%s: reading a %d-byte file allocated %d MiB", name, len(b), a>>20)
		}
	}
}

// allocatedBy runs read and returns the bytes it allocated, and its error.
func allocatedBy(read func() error) (uint64, error) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	err := read()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc, err
}
