package replay

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A base URL's user and password go out as HTTP basic authentication,
// base64 of user:password, which decodes to the password: a server that
// echoes the Authorization header it got has it masked in the Error
// column, as the password itself would be.
func TestBaseURLBasicCredentialNeverWritten(t *testing.T) {
	const pw = "PWLEAK-7a1f"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		w.Write([]byte(`{"error":{"message":"bad credential ` + r.Header.Get("Authorization") + `"}}`))
	}))
	defer srv.Close()
	cfg := testConfig(nil)
	cfg.BaseURL = strings.Replace(srv.URL, "http://", "http://me:"+pw+"@", 1) + "/v1"
	_, out := runRows(t, cfg, rows(1, 0, 40, 5))
	checkNoSecret(t, "basic", out[0], pw, base64.StdEncoding.EncodeToString([]byte("me:"+pw)))
}
