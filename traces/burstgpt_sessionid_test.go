package traces

import "testing"

// BurstGPT's README names the new column `SessionID`, its published layout
// "Session ID": either spelling carries the session.
func TestBurstGPTSessionIDSpellings(t *testing.T) {
	for _, col := range []string{"Session ID", "SessionID"} {
		in := "Timestamp," + col + ",Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
			"5,42,3.5,ChatGPT,10,20,30,Conversation log\n"
		rows := importString(t, FormatBurstGPT, in, ImportOptions{})
		if len(rows) != 1 || rows[0].SessionID != "42" {
			t.Errorf("header %q: rows %+v, want one with session 42", col, rows)
		}
	}
}
