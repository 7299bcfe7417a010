// Package interrupt makes an interrupted run (Ctrl-C, SIGTERM) leave
// nothing behind: the temporary files and folders the process made are
// removed, the child processes it started are killed, and one line says
// which outputs were left unchanged.
//
// Code that makes a temporary registers it with Track before creating it
// and releases it once it is published or removed; code that starts a
// child process registers it with TrackProcess. Publishing a set of files
// that belong together runs inside Critical, so an interrupt waits until
// the set is whole.
package interrupt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	// mu guards the registries. The handler takes it and never gives it
	// back: a Track that races with an interrupt blocks until the process
	// exits, so nothing is created after the cleanup ran.
	mu       sync.Mutex
	next     int
	paths    = map[int]tracked{}
	children = map[int]*os.Process{}
	// published are the outputs renamed into place whole: a signal that
	// comes after that (while the process is finishing) must not report
	// them as unwritten.
	published []string

	// critical is held (shared) while a set of files is renamed into
	// place; the handler takes it exclusively before cleaning up.
	critical sync.RWMutex
)

type tracked struct {
	path   string // the temporary, removed on interrupt
	target string // what it would have become ("" for scratch space)
}

// Track registers path (a file or folder about to be made) for removal on
// interrupt; target is the output it stands in for, or "" for scratch
// space. Call release once path is renamed away or removed.
func Track(path, target string) (release func()) {
	mu.Lock()
	defer mu.Unlock()
	id := next
	next++
	paths[id] = tracked{path: path, target: target}
	return func() {
		mu.Lock()
		delete(paths, id)
		mu.Unlock()
	}
}

// Published records that target was renamed into place whole. Call it
// inside Critical, right after the rename.
func Published(target string) {
	mu.Lock()
	published = append(published, target)
	mu.Unlock()
}

// TrackProcess registers a started child process to be killed on
// interrupt. Call release once it has exited.
func TrackProcess(p *os.Process) (release func()) {
	mu.Lock()
	defer mu.Unlock()
	id := next
	next++
	children[id] = p
	return func() {
		mu.Lock()
		delete(children, id)
		mu.Unlock()
	}
}

// Critical runs f with interrupts held back until it returns.
func Critical(f func() error) error {
	critical.RLock()
	defer critical.RUnlock()
	return f()
}

// Install starts handling SIGINT and SIGTERM: on either, every tracked
// child is killed and every tracked temporary removed, one line goes to
// w, and the process exits with 128 + the signal number (130, 143).
func Install(w io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-ch
		code, name := 130, "SIGINT"
		if sig == syscall.SIGTERM {
			code, name = 143, "SIGTERM"
		}
		fmt.Fprintln(w, Cleanup(name))
		os.Exit(code)
	}()
}

// Cleanup kills the tracked children and removes the tracked temporaries,
// and returns the line that reports it. It leaves the registries locked:
// the caller is about to exit.
func Cleanup(why string) string {
	critical.Lock()
	mu.Lock()
	for _, p := range children {
		p.Kill()
	}
	for _, p := range children {
		p.Wait()
	}
	var targets []string
	seen := map[string]bool{}
	removed := 0
	for _, t := range paths {
		os.RemoveAll(t.path)
		if insideAnother(t.path) {
			continue // a file of a temporary folder: the folder is what counts
		}
		removed++
		if t.target != "" && !seen[t.target] {
			seen[t.target] = true
			targets = append(targets, t.target)
		}
	}
	sort.Strings(targets)
	msg := "modelbridge: stopped by " + why
	if removed > 0 {
		msg += fmt.Sprintf("; removed %d temporary %s", removed, plural(removed, "file", "files"))
	}
	if len(targets) > 0 {
		msg += "; left unchanged: " + strings.Join(targets, ", ")
	}
	// Files published into scratch space (a temporary folder) went with
	// it: only what is still there counts.
	var done []string
	for _, p := range published {
		if _, err := os.Lstat(p); err == nil {
			done = append(done, p)
		}
	}
	sort.Strings(done)
	if len(done) > 0 {
		msg += "; written in full before the signal: " + strings.Join(done, ", ")
	}
	if len(targets) == 0 && len(done) == 0 {
		msg += "; no output was written"
	}
	return msg
}

// insideAnother tells whether p lies inside another tracked path. The
// caller holds mu.
func insideAnother(p string) bool {
	for _, t := range paths {
		if t.path != p && strings.HasPrefix(p, t.path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TempDir makes a scratch folder in the system's temporary folder, named
// prefix plus a random suffix, that is removed on interrupt. remove
// deletes it (and stops tracking it); call it when done.
func TempDir(prefix string) (dir string, remove func(), err error) {
	// The name is tracked before the folder exists, so that an interrupt
	// between the two cannot leave it behind.
	for try := 0; ; try++ {
		name := filepath.Join(os.TempDir(), prefix+strconv.FormatUint(rand.Uint64(), 36))
		release := Track(name, "")
		err := os.Mkdir(name, 0o700)
		if err == nil {
			return name, func() { os.RemoveAll(name); release() }, nil
		}
		release()
		if !errors.Is(err, fs.ErrExist) || try >= 100 {
			return "", nil, err
		}
	}
}

// Run starts cmd, has it killed on interrupt, and waits for it.
func Run(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	release := TrackProcess(cmd.Process)
	defer release()
	return cmd.Wait()
}
