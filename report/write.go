package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/servesim/servesim/internal/atomicfile"
)

// WriteFile writes d to path, the format by extension: .html/.htm is one
// self-contained HTML file; .md/.markdown is Markdown with the figures as
// SVG files in STEM_files/ beside it (report.md → report_files/), which
// then holds this report's figures only. The report, figures included,
// appears at path only when complete; a failure leaves the previous one.
func WriteFile(path string, d *Doc) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".html", ".htm":
		var buf bytes.Buffer
		if err := WriteHTML(&buf, d); err != nil {
			return err
		}
		return atomicfile.WriteFile(path, buf.Bytes())
	case ".md", ".markdown":
		return writeMarkdownFile(path, d)
	}
	return fmt.Errorf("%s: unknown report extension %q (want .html or .md)", path, filepath.Ext(path))
}

// CheckFigureDir refuses, before any work, a Markdown report at path whose
// figure folder WriteFile would refuse; other formats have none.
func CheckFigureDir(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return checkFigureDir(figureDir(path), path)
	}
	return nil
}

// figureDir is the folder beside a Markdown report at path that holds its
// figures: report.md → report_files.
func figureDir(path string) string {
	return filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+"_files")
}

// writeMarkdownFile writes the figures into a new folder and the Markdown
// into a temporary file beside path, each synced to disk, then swaps both
// in; the old figure folder is kept aside until the Markdown is in place,
// so that a failure at any step puts it back.
func writeMarkdownFile(path string, d *Doc) error {
	dir, assets := filepath.Dir(path), figureDir(path)
	rel := filepath.Base(assets)
	if err := checkFigureDir(assets, path); err != nil {
		return err
	}
	if err := atomicfile.CheckDir(path); err != nil {
		return err
	}
	tmpDir, err := os.MkdirTemp(dir, "."+rel+".tmp*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmpDir) // gone once swapped in
	// MkdirTemp makes the folder private; figures are output like any other
	if err := os.Chmod(tmpDir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, d, tmpDir, rel); err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort() // nothing to do once committed
	if _, err := f.Write(buf.Bytes()); err != nil {
		return err // names path
	}
	old := tmpDir + ".old"
	hadOld := true
	if err := os.Rename(assets, old); errors.Is(err, fs.ErrNotExist) {
		hadOld = false
	} else if err != nil {
		return err
	}
	restore := func() {
		if hadOld {
			os.Rename(old, assets)
		}
	}
	if err := os.Rename(tmpDir, assets); err != nil {
		restore()
		return err
	}
	err = f.Commit()
	if err != nil && !atomicfile.OnlyNotSynced(err) {
		// The Markdown is not in place: put its old figures back.
		os.RemoveAll(assets)
		restore()
		return err
	}
	os.RemoveAll(old)
	return err
}

// checkFigureDir refuses an existing assets folder that a report would
// not have written (anything but SVG files in it): the folder is replaced
// whole, and what a user put there must not be deleted with it.
func checkFigureDir(assets, path string) error {
	fi, err := os.Lstat(assets)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory: want the folder for %s's figures", assets, path)
	}
	entries, err := os.ReadDir(assets)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.EqualFold(filepath.Ext(e.Name()), ".svg") {
			return fmt.Errorf("%s: holds %s, which is not a report figure: want a folder of SVG files only, as it is replaced by %s's figures (move it, or write the report elsewhere)", assets, e.Name(), path)
		}
	}
	return nil
}
