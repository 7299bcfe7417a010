// Package atomicfile writes files so that readers see either the old content
// or the complete new content, never a partial file: data goes to a
// temporary file in the target's folder, is synced, then renamed over the
// target. On error the temporary file is removed and the target untouched.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// File is an output being written. Write through W (buffered), then call
// Commit; call Abort (safe after Commit) in a defer to clean up on error.
type File struct {
	W      *bufio.Writer
	f      *os.File
	target string
	done   bool
	// untrack stops the interrupt handler from removing the temporary
	// once it is renamed into place or removed.
	untrack func()
}

// ParentExists refuses an output whose folder does not exist. Every
// output follows the same rule: the folder it goes into must exist; only
// an output that is itself a folder (run --out, --to torch) is created.
func ParentExists(target string) error {
	parent := filepath.Dir(target)
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: folder %s does not exist; create it first", target, parent)
	}
	return nil
}

// Create starts writing target.
func Create(target string) (*File, error) {
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return nil, fmt.Errorf("cannot write %s: it is a folder; give a file name", target)
	}
	if st, err := os.Stat(filepath.Dir(target)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("cannot write %s: folder %s does not exist; create it first", target, filepath.Dir(target))
	}
	f, untrack, err := createTemp(target)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, err)
	}
	return &File{W: bufio.NewWriterSize(prefaultWriter{f}, 1<<20), f: f, target: target, untrack: untrack}, nil
}

// prefaultChunk is how much of a large write is faulted in and written at
// a time: big enough for few system calls, small enough to stay in cache.
const prefaultChunk = 8 << 20

// prefaultWriter writes large buffers (tensor data, often pointing into a
// mapped input file) a chunk at a time, each faulted in first
// (mmapfile.Prefault says why).
type prefaultWriter struct{ f *os.File }

func (w prefaultWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), prefaultChunk)]
		mmapfile.Prefault(chunk)
		n, err := w.f.Write(chunk)
		written += n
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

// Write implements io.Writer.
func (a *File) Write(p []byte) (int, error) { return a.W.Write(p) }

// Commit flushes, syncs and renames the file into place, then syncs the
// folder so that the rename itself survives a crash. A replaced file keeps
// its permission bits; a new one gets 0644 (less the umask).
func (a *File) Commit() error {
	if err := a.prepare(); err != nil {
		return err
	}
	return interrupt.Critical(a.publish)
}

// prepare flushes, syncs and closes the temporary file: every step that a
// full disk can fail. On error the temporary file is gone.
func (a *File) prepare() error {
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
		err = keepMode(a.f.Name(), a.target)
	}
	if err != nil {
		os.Remove(a.f.Name())
		a.untrack()
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	return nil
}

// publish renames the prepared file into place and syncs the folder.
func (a *File) publish() error {
	defer a.untrack()
	if err := os.Rename(a.f.Name(), a.target); err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	interrupt.Published(a.target)
	if err := syncDir(filepath.Dir(a.target)); err != nil {
		return fmt.Errorf("wrote %s but cannot sync its folder: %w", a.target, err)
	}
	return nil
}

// discard removes a prepared file that will not be published.
func (a *File) discard() {
	os.Remove(a.f.Name())
	a.untrack()
}

// CommitAll publishes files that belong together (an MXNet symbol and its
// params, the files of a PyTorch folder): all of them are written out and
// synced first, and renamed into place only when every one succeeded, so a
// full disk leaves the old set whole and nothing new.
func CommitAll(files ...*File) error {
	for i, f := range files {
		if err := f.prepare(); err != nil {
			for _, g := range files[:i] {
				g.discard()
			}
			for _, g := range files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	// An interrupt waits until the whole set is in place.
	return interrupt.Critical(func() error {
		for i, f := range files {
			if err := f.publish(); err != nil {
				for _, g := range files[i+1:] {
					g.discard()
				}
				return err
			}
		}
		return nil
	})
}

// Dir is a new folder filled under a hidden temporary name beside its
// target and renamed into place whole.
type Dir struct {
	// Path is where to write the folder's files until Commit.
	Path    string
	target  string
	done    bool
	untrack func()
}

// CreateDir starts a new folder target, which must not exist yet (or be
// an empty folder).
func CreateDir(target string) (*Dir, error) {
	parent := filepath.Dir(target)
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("cannot write %s: folder %s does not exist; create it first", target, parent)
	}
	// Mode 0755 less the umask, as for any new folder (os.MkdirTemp
	// would make it 0700).
	prefix := filepath.Join(parent, "."+filepath.Base(target)+".tmp-")
	var tmp string
	var untrack func()
	for try := 0; ; try++ {
		tmp = prefix + strconv.FormatUint(rand.Uint64(), 36)
		untrack = interrupt.Track(tmp, target)
		err := os.Mkdir(tmp, 0o755)
		if err == nil {
			break
		}
		untrack()
		if !errors.Is(err, fs.ErrExist) || try >= 100 {
			return nil, fmt.Errorf("cannot write %s: %w", target, err)
		}
	}
	return &Dir{Path: tmp, target: target, untrack: untrack}, nil
}

// Commit renames the filled folder to its target (replacing an empty
// folder there).
func (d *Dir) Commit() error {
	if d.done {
		return fmt.Errorf("%s: already committed", d.target)
	}
	d.done = true
	defer d.untrack()
	if st, err := os.Stat(d.target); err == nil && st.IsDir() {
		os.Remove(d.target) // only succeeds when empty; Rename then reports the rest
	}
	if err := interrupt.Critical(func() error {
		if err := os.Rename(d.Path, d.target); err != nil {
			return err
		}
		interrupt.Published(d.target)
		return nil
	}); err != nil {
		os.RemoveAll(d.Path)
		return fmt.Errorf("cannot write %s: %w", d.target, err)
	}
	if err := syncDir(filepath.Dir(d.target)); err != nil {
		return fmt.Errorf("wrote %s but cannot sync its folder: %w", d.target, err)
	}
	return nil
}

// Abort removes the temporary folder unless Commit succeeded.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	os.RemoveAll(d.Path)
	d.untrack()
}

// createTemp makes a hidden, unused file beside target with mode 0644
// (less the umask, as for any new file); os.CreateTemp would make it 0600.
// The name is tracked for removal on interrupt before the file exists.
func createTemp(target string) (*os.File, func(), error) {
	prefix := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".tmp-")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		untrack := interrupt.Track(name, target)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			untrack()
		}
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, untrack, err
	}
}

// keepMode gives tmp the permission bits of target when target is an
// existing regular file, so that replacing a file does not change who may
// read or run it.
func keepMode(tmp, target string) error {
	st, err := os.Stat(target)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return os.Chmod(tmp, st.Mode().Perm())
}

// syncDir makes a rename in dir durable. Filesystems that cannot sync a
// folder report EINVAL (or ENOTSUP); that is no error for the caller.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// Abort discards the temporary file unless Commit succeeded.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
	a.untrack()
}
