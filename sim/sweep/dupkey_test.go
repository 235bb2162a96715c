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
