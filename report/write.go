package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/traces"
)

// WriteFile writes d to path, the format by extension: .html/.htm is one
// self-contained HTML file; .md/.markdown is Markdown with the figures as
// SVG files in STEM_files/ beside it (report.md → report_files/). The
// report appears at path only when complete.
func WriteFile(path string, d *Doc) error {
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(path)) {
	case ".html", ".htm":
		if err := WriteHTML(&buf, d); err != nil {
			return err
		}
	case ".md", ".markdown":
		rel := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + "_files"
		if err := WriteMarkdown(&buf, d, filepath.Join(filepath.Dir(path), rel), rel); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: unknown report extension %q (want .html or .md)", path, filepath.Ext(path))
	}
	tmp, err := traces.TempBeside(path)
	if err != nil {
		return err
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
