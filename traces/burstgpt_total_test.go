package traces

import "testing"

// BurstGPT's Total tokens is Request tokens + Response tokens on every row,
// failed ones (0 response tokens) included; rows that agree import, and a
// file without the column (it is optional) imports too.
func TestImportBurstGPTTotalTokensAgree(t *testing.T) {
	in := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"1,ChatGPT,472,0,472,Conversation log\n" +
		"2,ChatGPT,0,0,0,Conversation log\n" +
		"3,GPT-4,10,5,15.0,API log\n"
	if rows := importString(t, FormatBurstGPT, in, ImportOptions{}); len(rows) != 3 {
		t.Errorf("%d rows, want 3", len(rows))
	}
	noTotal := "Timestamp,Request tokens,Response tokens\n1,10,5\n"
	if rows := importString(t, FormatBurstGPT, noTotal, ImportOptions{}); len(rows) != 1 {
		t.Errorf("without Total tokens: %d rows, want 1", len(rows))
	}
}
