package traces

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
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

// workloadKeys are the Extra keys of the transformations that change which
// requests of the input files arrive when: a slice, a spread, dropped
// failures, ShareGPT's Poisson rate and seed, and a synthetic trace's
// arrivals, seed, warm-up and shared prefixes (its lengths resampled from
// the files, or from the window resample_slice names). (A time scale is
// taken with a live run's own, in Workload.)
// Everything else in Extra describes the run, the format or the history:
// a conversion to another format, for one, changes no request.
var workloadKeys = []string{"slice", "spread_ns", "drop_failed", "rate", "seed", "arrival", "warmup", "prefix_groups", "resample_slice"}

// Workload is what, besides its input files (Meta.Checksums), makes the
// requests of a trace with metadata m arrive as they do: each of
// workloadKeys that m records, and "time_scale", the product of its
// scales and the live run's replay.time_scale to 12 significant digits,
// unless that is 1. Two traces of the same input files ran one workload
// when their Workload is equal too; a key absent from older files is no
// transformation.
func Workload(m Meta) map[string]string {
	w := map[string]string{}
	for _, k := range workloadKeys {
		if v, ok := m.Extra[k]; ok {
			w[k] = v
		}
	}
	if v := scaleProduct(m.Extra["time_scale"], m.Extra["replay.time_scale"]); v != "" {
		w["time_scale"] = v
	}
	return w
}

// scaleProduct is the product of the "*"-joined scales in vs ("2*0.5", as
// Scale records them; a replay at time scale s sends the arrivals s times
// as far apart) to 12 significant digits, "" when that is 1. An
// unreadable factor keeps them as written, never taken for none.
func scaleProduct(vs ...string) string {
	scale, exact := 1.0, true
	var raw []string
	for _, v := range vs {
		for f := range strings.SplitSeq(v, "*") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			raw = append(raw, f)
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				exact = false
			}
			scale *= x
		}
	}
	// To 12 digits: 0.1*3 replayed at 1/0.3 multiplies to 1.0000000000000002,
	// and 0.7*3 to 2.0999999999999996, the workloads of 1 and 2.1.
	rounded := strconv.FormatFloat(scale, 'g', 12, 64)
	switch {
	case !exact:
		return strings.Join(raw, "*")
	case rounded != "1":
		return rounded
	}
	return ""
}
