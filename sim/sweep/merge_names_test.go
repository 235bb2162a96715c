package sweep

import (
	"path/filepath"
	"strings"
	"testing"
)

// A shard file merge refuses is named by its path, not by its place among
// the arguments, which a shard's own index ("shard 1/2") reads like.
func TestMergeFilesNamesTheFileItRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, m Meta) string {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, &Results{Meta: m}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s0 := write("a.parquet", Meta{SpecSHA256: "s", Shard: Shard{0, 2}, TotalConfigs: 2})
	other := write("b.parquet", Meta{SpecSHA256: "t", Shard: Shard{1, 2}, TotalConfigs: 2})
	again := write("c.parquet", Meta{SpecSHA256: "s", Shard: Shard{0, 2}, TotalConfigs: 2})
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{s0, other}, []string{other, "another spec", s0}},
		{[]string{s0, again}, []string{again, "shard 0/2", s0}},
	} {
		_, err := MergeFiles(c.files)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("MergeFiles(%v) = %v, want it to name %q", c.files, err, w)
			}
		}
	}
}

// A config a shard file holds twice is named with that file.
func TestMergeFilesNamesTheFileWithADuplicateConfig(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := WriteFile(a, &Results{Meta: Meta{SpecSHA256: "s", Shard: Shard{0, 2}, TotalConfigs: 2}, Rows: []Row{skippedRow(0)}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(b, &Results{Meta: Meta{SpecSHA256: "s", Shard: Shard{1, 2}, TotalConfigs: 2}, Rows: []Row{skippedRow(1), skippedRow(1)}}); err != nil {
		t.Fatal(err)
	}
	_, err := MergeFiles([]string{a, b})
	if err == nil || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("err = %v, want config 1 refused as held twice by %s", err, b)
	}
}
