package traces

import (
	"strings"
	"testing"
)

// A trace imported from a public data set is an adaptation of it: the
// data set's licence (CC-BY-4.0 requires attribution) travels with it.
func TestImportRecordsSourceLicence(t *testing.T) {
	for _, c := range []struct {
		format ImportFormat
		path   string
		want   []string
	}{
		{FormatAzure, "testdata/azure2023_code_head200.csv", []string{"CC-BY-4.0", "Azure/AzurePublicDataset"}},
		{FormatBurstGPT, "testdata/burstgpt_v1_first400.csv", []string{"CC-BY-4.0", "HPMLL/BurstGPT"}},
		{FormatMooncake, "testdata/mooncake_head200.jsonl", []string{"Apache-2.0", "kvcache-ai/Mooncake"}},
		{FormatVidur, "testdata/vidur_splitwise_conv_head200.csv", []string{"MIT", "microsoft/vidur"}},
	} {
		m, _ := importAll(t, c.path, c.format, ImportOptions{})
		got := m.Extra["licence"]
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: metadata licence = %q, want it to name %q", c.format, got, w)
			}
		}
	}
}

// ShareGPT's licence is the one of whichever dump is imported: naming
// one would be a guess.
func TestImportShareGPTRecordsNoLicence(t *testing.T) {
	in := `[{"id":"a","conversations":[{"from":"human","value":"hi"},{"from":"gpt","value":"hello"}]}]`
	r, err := NewImporter(FormatShareGPT, strings.NewReader(in), ImportOptions{Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Meta().Extra["licence"]; ok {
		t.Errorf("sharegpt: metadata licence = %q, want none", v)
	}
}
