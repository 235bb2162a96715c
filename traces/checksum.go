package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// checksumPrefix starts a checksum as Meta.Checksums records it. Profiles,
// sweep results and verification results store the bare hex after it.
const checksumPrefix = "sha256:"

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

// FileSHA256 is FileChecksum as bare lower-case hex, the form profiles,
// sweep results and verification results store.
func FileSHA256(path string) (string, error) {
	sum, err := FileChecksum(path)
	return SHA256Hex(sum), err
}

// SHA256Hex is the bare hex of a checksum given in either form: two
// checksums name the same bytes when their SHA256Hex are equal.
func SHA256Hex(sum string) string { return strings.TrimPrefix(sum, checksumPrefix) }

// SHA256Checksum is the checksum, as Meta.Checksums records it, of a
// sha256 given in either form.
func SHA256Checksum(sum string) string { return checksumPrefix + SHA256Hex(sum) }

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
	return checksumPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// SameInputs says whether two sets of input checksums (Meta.Checksums)
// name the same files by content: a file renamed or moved holds the same
// requests, and a checksum in either form names the same bytes.
func SameInputs(a, b map[string]string) bool {
	sums := func(m map[string]string) []string {
		s := make([]string, 0, len(m))
		for _, v := range m {
			s = append(s, SHA256Hex(v))
		}
		return slices.Sorted(slices.Values(s))
	}
	return slices.Equal(sums(a), sums(b))
}
