package traces

import "testing"

// BurstGPT marks a failed request by 0 response tokens (its README: "some
// failure that `Response tokens` are 0s"), whatever the request tokens.
func TestImportBurstGPTFailedIsZeroResponse(t *testing.T) {
	in := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"1,ChatGPT,472,0,472,Conversation log\n" +
		"2,ChatGPT,0,0,0,Conversation log\n" +
		"3,ChatGPT,0,5,5,Conversation log\n" +
		"4,ChatGPT,10,5,15,Conversation log\n"
	rows := importString(t, FormatBurstGPT, in, ImportOptions{})
	var got []bool
	for _, r := range rows {
		got = append(got, r.SourceFailed)
	}
	want := []bool{true, true, false, false}
	if len(got) != len(want) {
		t.Fatalf("source_failed = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("source_failed = %v, want %v", got, want)
		}
	}
	kept := importString(t, FormatBurstGPT, in, ImportOptions{DropFailed: true})
	if len(kept) != 2 || kept[0].Arrival != 0 || kept[1].Arrival != 1e9 {
		t.Errorf("with DropFailed: %d rows, want the 2 with response tokens", len(kept))
	}
}
