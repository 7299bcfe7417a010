// Package regfile opens input files only when they are regular files:
// a FIFO would block the reader forever, and a device such as /dev/zero
// (directly or through a symlink) never ends. Reads are bounded by the
// size the file had when it was opened.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Open opens path for reading. It refuses folders and every kind of
// non-regular file, without blocking on a FIFO.
func Open(path string) (*os.File, os.FileInfo, error) {
	// Check before opening: opening a FIFO for reading waits for a writer.
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, plainError(path, err)
	}
	if err := check(path, st); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	// Check again what was opened: the path may have been swapped.
	st, err = f.Stat()
	if err == nil {
		err = check(path, st)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

func check(path string, st os.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsDir():
		return fmt.Errorf("%s is a folder, not a file", path)
	case !m.IsRegular():
		return fmt.Errorf("%s is not a regular file (%s); give a model or data file", path, kind(m))
	}
	return nil
}

func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// ReadFile reads a whole regular file: at most the size it had when
// opened, so a file that grows while read cannot make the read unbounded.
func ReadFile(path string) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := st.Size()
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s: %d bytes is too large to read", path, size)
	}
	data := make([]byte, size)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data[:n], nil
}

// openError is an error opening an input, worded for the user ("x.onnx:
// no such file") while errors.Is still sees the system's error.
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }

// plainError words the common failures of opening path without the
// system call's name.
func plainError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &openError{fmt.Sprintf("%s: no such file (check the path)", path), err}
	case errors.Is(err, fs.ErrPermission):
		return &openError{fmt.Sprintf("%s: permission denied", path), err}
	}
	return err
}
