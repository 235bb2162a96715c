package traces

import (
	"strings"
	"testing"
)

// A CSV row longer than the header is refused naming the column of its
// first field past the header's, where the shifted value starts.
func TestImportExtraFieldNamesItsColumn(t *testing.T) {
	in := "Timestamp,Request tokens,Response tokens\n5,1,1\n6,1,2,9\n"
	_, err := importStringErr(FormatBurstGPT, in, ImportOptions{Name: "in.csv"})
	const want = "in.csv:3:7: want 3 fields as in the header, got 4"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
