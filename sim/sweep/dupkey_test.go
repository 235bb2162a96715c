package sweep

import (
	"strings"
	"testing"
)

// A swept key spelt twice, once as a quoted dotted key and once as a
// sub-table, would keep one of the two lists, whichever the map walk
// met last: the spec must say which it means.
func TestParseSpecRefusesAKeyGivenTwice(t *testing.T) {
	for _, body := range []string{
		"[sweep]\n\"device.count\" = [1]\ndevice = { count = [2] }\n",
		"[sweep]\n\"device.count\" = [1]\n[sweep.device]\ncount = [2]\n",
	} {
		_, _, err := writeSpec(t, `base = "base.toml"`+"\n"+body+sloTOML)
		if err == nil || !strings.Contains(err.Error(), "sweep.device.count") || !strings.Contains(err.Error(), "twice") {
			t.Errorf("spec\n%s\nerr = %v, want sweep.device.count refused as given twice", body, err)
		}
	}
}

// An empty table under [sweep] sweeps nothing: written for a key's range
// and left empty, it was skipped without a word.
func TestParseSpecRefusesAnEmptyTable(t *testing.T) {
	for _, body := range []string{
		"[sweep]\n\"batch.max_num_seqs\" = {}\n\"device.count\" = [1, 2]\n",
		"[sweep]\n\"device.count\" = [1, 2]\n[sweep.batch]\n",
	} {
		_, _, err := writeSpec(t, `base = "base.toml"`+"\n"+body+sloTOML)
		if err == nil || !strings.Contains(err.Error(), "empty table") {
			t.Errorf("spec\n%s\nerr = %v, want the empty table refused", body, err)
		}
	}
}

// The key given twice is named at the line of its quoted dotted
// spelling, whichever of the two the map walk meets first.
func TestParseSpecNamesTheLineOfAKeyGivenTwice(t *testing.T) {
	head := `base = "base.toml"` + sloTOML // lines 1–5
	for _, body := range []string{
		"[sweep]\n\"device.count\" = [1]\ndevice = { count = [2] }\n",
		"[sweep.device]\ncount = [2]\n[sweep]\n\"device.count\" = [1]\n",
	} {
		want := "line 7: sweep.device.count: given twice"
		if strings.HasPrefix(body, "[sweep.device]") {
			want = "line 9: sweep.device.count: given twice"
		}
		for range 20 { // the walk's order varies from run to run
			_, _, err := writeSpec(t, head+"\n"+body)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("spec\n%s\nerr = %v, want %q", body, err, want)
			}
		}
	}
}
