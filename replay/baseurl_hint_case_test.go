package replay

import "testing"

// A base URL's /v1 is told without case, as a user types it: "/V1" is no
// missing /v1 to append (".../V1/v1" would 404 too), but a segment whose
// case a server's case-sensitive paths miss, and "/V1/v1" is doubled. A
// non-ASCII letter before it moves no index.
func TestBaseURLHintReadsV1WithoutCase(t *testing.T) {
	for base, want := range map[string]string{
		"http://h:8000/V1":                      "; the base URL http://h:8000/V1 has /V1, and paths are case-sensitive; try http://h:8000/v1",
		"http://h:8000/V1/v1":                   "; the base URL http://h:8000/V1/v1 has a doubled /v1; try http://h:8000/v1",
		"http://h:8000/v1/V1/":                  "; the base URL http://h:8000/v1/V1/ has a doubled /v1; try http://h:8000/v1",
		"http://h:8000/İ/V1":                    "; the base URL http://h:8000/%C4%B0/V1 has /V1, and paths are case-sensitive; try http://h:8000/%C4%B0/v1",
		"http://h:8000/api/v1/Chat/Completions": "; the base URL http://h:8000/api/v1/Chat/Completions already ends in an endpoint path; give only the API root, e.g. http://h:8000/api/v1",
	} {
		got := baseURLHint(base)
		if got != want {
			t.Errorf("baseURLHint(%q) = %q\nwant %q", base, got, want)
		}
	}
}
