package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// A server that echoes a wrong key in a long error message: the row's
// error is clipped, and no part of the key survives the cut.
func TestSecretCutByTheClipIsMasked(t *testing.T) {
	token := strings.TrimPrefix(secret, "Bearer ")
	for pad := 270; pad <= 300; pad += 3 { // the clip cuts the key at each of these
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			io.WriteString(w, `{"error":{"message":"`+strings.Repeat("x", pad)+key+`"}}`)
		}))
		r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
		r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"))
		_, rows := r.finish(t)
		up.Close()
		if len(rows) != 1 || rows[0].HTTPStatus != 401 {
			t.Fatalf("rows %+v", rows)
		}
		b, _ := os.ReadFile(r.out)
		if leak := token[:4]; strings.Contains(rows[0].Error, leak) || strings.Contains(string(b), leak) {
			t.Errorf("pad %d: the start of the key is in the trace: %q", pad, rows[0].Error)
		}
		if !strings.HasPrefix(rows[0].Error, "HTTP 401: xxx") || len(rows[0].Error) > 300+len("…") {
			t.Errorf("pad %d: error %q, want the message clipped to 300 bytes", pad, rows[0].Error)
		}
	}
}

// A client may send its key in the query (?key=..., as Gemini's and some
// Azure clients do) or as Basic credentials: a server that echoes it in an
// error, or a redirect that carries the query on, must not put it in the
// trace.
func TestClientQueryAndBasicKeysEchoedAreMasked(t *testing.T) {
	const qkey, basic = "AIzaQueryKey0123456789", "dXNlcjpiYXNpYy1wYXNzd29yZC0wMTIz"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/v1/chat/completions":
			http.Redirect(w, r, "/v2/chat/completions?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			io.WriteString(w, `{"error":{"message":"bad key `+r.URL.Query().Get("key")+` or credentials `+cred+`"}}`)
		}
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	r.post(t, "/v1/chat/completions?key="+qkey, chatBody("m", false, false, "hi"))
	r.post(t, "/v1/completions?key="+qkey, `{"model":"m","prompt":"hi"}`, "Authorization", "Basic "+basic)
	_, rows := r.finish(t)
	if len(rows) != 2 || rows[0].HTTPStatus != 307 || rows[1].HTTPStatus != 401 {
		t.Fatalf("rows %+v", rows)
	}
	b, _ := os.ReadFile(r.out)
	for _, k := range []string{qkey, basic} {
		if strings.Contains(string(b), k) {
			t.Errorf("the key %s is in the trace: %q, %q", k, rows[0].Error, rows[1].Error)
		}
	}
	if rows[0].Error != "HTTP 307: redirects to /v2/chat/completions?key=[redacted]" {
		t.Errorf("error %q", rows[0].Error)
	}
	if rows[1].Error != "HTTP 401: bad key [redacted] or credentials [redacted]" {
		t.Errorf("error %q", rows[1].Error)
	}
}

// The basic credential the proxy sends for an --upstream with a user and
// password is a secret too: a server that echoes it (base64 of
// user:password, which decodes to the password) has it masked.
func TestUpstreamBasicCredentialEchoedIsMasked(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		io.WriteString(w, `{"error":{"message":"bad credentials `+cred+`"}}`)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = strings.Replace(up.URL, "://", "://alice:pwLEAK@", 1) })
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody("m", false, false, "hi")))
	resp, err := http.DefaultClient.Do(req) // no Authorization: the proxy sends the upstream's
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rows := r.finish(t)
	if len(rows) != 1 || rows[0].Error != "HTTP 401: bad credentials [redacted]" {
		t.Errorf("%d rows, error %q: want the echoed credential masked", len(rows), rows[0].Error)
	}
}

// Google's and Azure API Management's key headers carry keys too: one a
// server echoes is masked in the trace.
func TestVendorKeyHeadersEchoedAreMasked(t *testing.T) {
	for _, h := range []string{"X-Goog-Api-Key", "Ocp-Apim-Subscription-Key"} {
		const key = "vendorKEY0123456789"
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad key `+r.Header.Get(h)+`"}}`)
		}))
		r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
		r.post(t, "/v1/chat/completions", chatBody("m", false, false, "hi"), h, key)
		_, rows := r.finish(t)
		up.Close()
		if len(rows) != 1 || rows[0].Error != "HTTP 401: bad key [redacted]" {
			t.Errorf("%s: %d rows, error %q: want the echoed key masked", h, len(rows), rows[0].Error)
		}
	}
}

// A request may carry a key header twice: a server echoing the second
// value has it masked too, not only the first.
func TestSecondKeyHeaderEchoedIsMasked(t *testing.T) {
	const second = "Bearer secondKEY0123456789"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"bad key `+r.Header.Values("Authorization")[1]+`"}}`)
	}))
	defer up.Close()
	r := newRig(t, ".jsonl", func(c *Config) { c.Upstream = up.URL })
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/chat/completions", strings.NewReader(chatBody("m", false, false, "hi")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("Authorization", secret)
	req.Header.Add("Authorization", second)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, rows := r.finish(t)
	if len(rows) != 1 || strings.Contains(rows[0].Error, "secondKEY") {
		t.Errorf("%d rows, error %q: want the echoed second key masked", len(rows), rows[0].Error)
	}
}
