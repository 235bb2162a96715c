package traces

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// A run on a converted file and a run on its source fed the same rows:
// their input checksums must match. A slice or a scale of it names the
// same input files and another workload.
func TestConvertedFileKeepsSourceLineage(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "azure2023_code_head200.csv")
	sums := func(path string, format ImportFormat) map[string]string {
		t.Helper()
		r, err := Import(path, format, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Meta().Checksums
	}
	workload := func(path string) map[string]string {
		t.Helper()
		r, err := Import(path, FormatAuto, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return Workload(r.Meta())
	}
	write := func(out string, r Reader, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteTrace(context.Background(), out, r); err != nil {
			t.Fatal(err)
		}
	}
	conv := filepath.Join(dir, "conv.parquet")
	r, err := Import(src, FormatAuto, ImportOptions{})
	write(conv, r, err)
	if a, b := sums(src, FormatAuto), sums(conv, FormatAuto); !maps.Equal(a, b) {
		t.Errorf("source checksums %v, converted file's %v: want the same", a, b)
	}
	arrow := filepath.Join(dir, "conv.arrow")
	if _, err := Convert(context.Background(), conv, arrow); err != nil {
		t.Fatal(err)
	}
	if a, b := sums(src, FormatAuto), sums(arrow, FormatAuto); !maps.Equal(a, b) {
		t.Errorf("source checksums %v, re-converted file's %v: want the same", a, b)
	}

	sliced := filepath.Join(dir, "slice.parquet")
	r, err = Import(conv, FormatServesim, ImportOptions{})
	write(sliced, Slice(r, 0, 0, 10), err)
	if a, b := sums(src, FormatAuto), sums(sliced, FormatAuto); !maps.Equal(a, b) || workload(sliced)["slice"] == "" {
		t.Errorf("a slice's checksums %v (source's %v), workload %v: want the source's checksums and the slice", b, a, workload(sliced))
	}
	scaled := filepath.Join(dir, "scale.parquet")
	r, err = Import(conv, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Scale(r, 2)
	write(scaled, s, err)
	if a, b := sums(src, FormatAuto), sums(scaled, FormatAuto); !maps.Equal(a, b) || workload(scaled)["time_scale"] != "2" {
		t.Errorf("a scale's checksums %v (source's %v), workload %v: want the source's checksums and time_scale 2", b, a, workload(scaled))
	}
}

// One rule hashes a file: FileSHA256 is FileChecksum's hex, and either
// form converts to the other.
func TestChecksumForms(t *testing.T) {
	path := filepath.Join("testdata", "azure2023_code_head200.csv")
	sum, err := FileChecksum(path)
	if err != nil {
		t.Fatal(err)
	}
	hex, err := FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	if "sha256:"+hex != sum || SHA256Checksum(hex) != sum || SHA256Checksum(sum) != sum || SHA256Hex(sum) != hex {
		t.Errorf("FileChecksum %s, FileSHA256 %s: want the one as sha256: and the other's hex", sum, hex)
	}
	if !SameInputs(map[string]string{"a.csv": sum}, map[string]string{"b.csv": hex}) {
		t.Error("SameInputs: a renamed file, its sha256 as bare hex: want the same input")
	}
}

// A synthetic file's slice or scale holds that file's rows, as a
// converted file's does: a run on it names the synthetic file and the
// slice or scale as its workload, so that a sweep's row at a rate scale
// and a run on the same trace scaled by hand name one workload. A trace
// that resamples a file's lengths is a workload of its own.
func TestSyntheticFileDerivativeKeepsItsLineage(t *testing.T) {
	dir := t.TempDir()
	sums := func(path string) map[string]string {
		t.Helper()
		r, err := Import(path, FormatAuto, ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Meta().Checksums
	}
	write := func(out string, r Reader, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteTrace(context.Background(), out, r); err != nil {
			t.Fatal(err)
		}
	}
	c := DefaultSynthConfig()
	c.Requests = 20
	syn := filepath.Join(dir, "syn.parquet")
	r, err := Synthesize(c)
	write(syn, r, err)

	scaled := filepath.Join(dir, "scaled.parquet")
	r, err = Import(syn, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Scale(r, 2)
	write(scaled, s, err)
	if a, b := sums(syn), sums(scaled); !maps.Equal(a, b) {
		t.Errorf("a scale's checksums %v, the synthetic file's %v: want the same", b, a)
	}
	sliced := filepath.Join(dir, "sliced.parquet")
	r, err = Import(scaled, FormatServesim, ImportOptions{})
	write(sliced, Slice(r, 0, 0, 10), err)
	if a, b := sums(syn), sums(sliced); !maps.Equal(a, b) {
		t.Errorf("a slice of a scale: checksums %v, the synthetic file's %v: want the same", b, a)
	}

	r, err = Import(syn, FormatServesim, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEmpirical(r)
	if err != nil {
		t.Fatal(err)
	}
	c.Resample = e
	resampled := filepath.Join(dir, "resampled.parquet")
	r, err = Synthesize(c)
	write(resampled, r, err)
	if got := sums(resampled); got["resampled.parquet"] == "" {
		t.Errorf("a resampled trace's checksums %v: want its own among them", got)
	}
}
