package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write creates target through a File and commits it.
func write(t *testing.T, target, content string) error {
	t.Helper()
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	return f.Commit()
}

// noTemps fails when dir holds anything but the named files.
func noTemps(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.bin")
	if err := write(t, target, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "hello" {
		t.Fatalf("content %q", got)
	}
	st, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if want := fs.FileMode(0o644 &^ umask); st.Mode().Perm() != want {
		t.Fatalf("mode %v, want %v", st.Mode().Perm(), want)
	}
	noTemps(t, dir, "out.bin")
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640} {
		target := filepath.Join(dir, "out.bin")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, mode); err != nil {
			t.Fatal(err)
		}
		if err := write(t, target, "new"); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("replacing a %v file left mode %v", mode, st.Mode().Perm())
		}
		if got := readString(t, target); got != "new" {
			t.Fatalf("content %q", got)
		}
		noTemps(t, dir, "out.bin")
	}
}

func TestAbortLeavesTargetUntouched(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half of the new content")); err != nil {
		t.Fatal(err)
	}
	if err := f.W.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	f.Abort() // idempotent
	if got := readString(t, target); got != "old" {
		t.Fatalf("target changed to %q", got)
	}
	noTemps(t, dir, "out.bin")
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}

	// Abort after a successful Commit keeps the new file.
	if err := write(t, target, "new"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "new" {
		t.Fatalf("content %q", got)
	}
	noTemps(t, dir, "out.bin")
}

// A Commit that fails reports the target and leaves no temporary file
// behind: here the target's folder is removed while writing, and the
// target is a folder the file cannot be renamed over.
func TestFailedCommitLeavesNoTemp(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "sub")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "out.bin")
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("Commit error %v, want one naming %s", err, target)
	}
	noTemps(t, parent)

	// A folder is in the way: refused before anything is written.
	blocked := filepath.Join(parent, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(blocked); err == nil || !strings.Contains(err.Error(), blocked) || !strings.Contains(err.Error(), "folder") {
		t.Fatalf("Create error %v, want one naming %s as a folder", err, blocked)
	}
	noTemps(t, parent, "blocked")
	noTemps(t, blocked, "inside")
}

func TestCreateInMissingFolder(t *testing.T) {
	target := filepath.Join(t.TempDir(), "missing", "out.bin")
	if _, err := Create(target); err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("error %v, want one naming %s", err, target)
	}
}
