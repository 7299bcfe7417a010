// Package atomicfile writes files so that readers see either the old content
// or the complete new content, never a partial file: data goes to a
// temporary file in the target's folder, is synced, then renamed over the
// target. On error the temporary file is removed and the target untouched.
package atomicfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// File is an output being written. Write through W (buffered), then call
// Commit; call Abort (safe after Commit) in a defer to clean up on error.
type File struct {
	W      *bufio.Writer
	f      *os.File
	target string
	done   bool
}

// Create starts writing target.
func Create(target string) (*File, error) {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, err)
	}
	return &File{W: bufio.NewWriterSize(f, 1<<20), f: f, target: target}, nil
}

// Write implements io.Writer.
func (a *File) Write(p []byte) (int, error) { return a.W.Write(p) }

// Commit flushes, syncs and renames the file into place.
func (a *File) Commit() error {
	if a.done {
		return fmt.Errorf("%s: already committed", a.target)
	}
	a.done = true
	err := a.W.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes files 0600; give the output the usual mode.
		err = os.Chmod(a.f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.target)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	return nil
}

// Abort discards the temporary file unless Commit succeeded.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}
