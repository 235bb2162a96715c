package traces

import (
	"strings"
	"testing"
)

// A stored Arrow schema that is not base64 is the file's fault, refused
// with the other broken schemas, so every reader names it alike (a bare
// "illegal base64 data" said neither what nor where).
func TestStoredSchemaNotBase64(t *testing.T) {
	stored := "/////7gBAAAQ!AAAAAAKAA4ABgAFAAgACgAAAAABBAAQAAAA"
	err := checkParquetArrowSchema(&stored)
	if err == nil || !strings.Contains(err.Error(), "stored Arrow schema") || !strings.Contains(err.Error(), "base64") {
		t.Fatalf("checkParquetArrowSchema = %v, want an error saying the stored Arrow schema is not base64", err)
	}
}
