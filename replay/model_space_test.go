package replay

import (
	"errors"
	"testing"
)

// A model name of whitespace alone, or with whitespace around it (a line
// pasted with its break), is refused before any request; one with a space
// inside is a name like any other.
func TestValidateModelWhitespace(t *testing.T) {
	for model, refused := range map[string]bool{
		"  ":          true,
		"llama-8b\n":  true,
		" llama-8b":   true,
		"my model 8b": false,
	} {
		c := testConfig(nil)
		c.BaseURL, c.Model = "http://127.0.0.1:8000/v1", model
		err := c.Validate()
		var fe *FieldError
		if got := errors.As(err, &fe) && fe.Field == "Model"; got != refused {
			t.Errorf("Model %q: error %v, want Model refused: %v", model, err, refused)
		}
	}
}
