package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// FileChecksum is the checksum of the file at path as Meta.SetChecksum
// records an input: "sha256:HEX".
func FileChecksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return checksum(f, path)
}

// DataChecksum is FileChecksum of a file held in memory (an embedded
// one).
func DataChecksum(data []byte) string {
	sum, _ := checksum(bytes.NewReader(data), "") // reading memory cannot fail
	return sum
}

// checksum is FileChecksum of what r reads; errors name path.
func checksum(r io.Reader, path string) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
