package robust

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/internal/picklewrite"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// Compressed data is charged to a budget before it is inflated, and zip
// entries are CRC-checked.

// bombRSS bounds one run over a compression bomb: the files are a few
// hundred KB and inflate to hundreds of MB.
const bombRSS = 100 << 20

// runMeasured runs the command and returns stderr, the exit status, the
// peak RSS and the time taken.
func runMeasured(t *testing.T, args ...string) (string, int, int64, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, modelbridgeBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after %v", args, runTimeout)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024
	}
	return stderr.String(), cmd.ProcessState.ExitCode(), rss, took
}

// deflatedStateDict is a torch.save zip holding one float32 tensor of n
// elements whose storage entry is deflated: zeros compress about 1000:1.
func deflatedStateDict(t *testing.T, n int64) []byte {
	t.Helper()
	od := picklewrite.Global{Module: "collections", Name: "OrderedDict"}
	pid := &picklewrite.PersistentID{ID: picklewrite.Tuple{
		picklewrite.Str("storage"), picklewrite.Global{Module: "torch", Name: "FloatStorage"},
		picklewrite.Str("0"), picklewrite.Str("cpu"), picklewrite.Int(n),
	}}
	pkl, err := picklewrite.Marshal(&picklewrite.Reduce{Callable: od, Args: picklewrite.Tuple{}, Items: []picklewrite.Item{{
		Key: picklewrite.Str("w"),
		Value: &picklewrite.Reduce{Callable: picklewrite.Global{Module: "torch._utils", Name: "_rebuild_tensor_v2"}, Args: picklewrite.Tuple{
			pid, picklewrite.Int(0), picklewrite.Tuple{picklewrite.Int(n)}, picklewrite.Tuple{picklewrite.Int(1)}, picklewrite.Bool(false),
			&picklewrite.Reduce{Callable: od, Args: picklewrite.Tuple{}},
		}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct {
		name   string
		method uint16
		size   int64
		data   []byte
	}{{"archive/data.pkl", zip.Store, 0, pkl}, {"archive/version", zip.Store, 0, []byte("3\n")}, {"archive/data/0", zip.Deflate, 4 * n, nil}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		if e.data != nil {
			w.Write(e.data)
			continue
		}
		zeros := make([]byte, 1<<20)
		for left := e.size; left > 0; left -= int64(len(zeros)) {
			w.Write(zeros[:min(left, int64(len(zeros)))])
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeWithCode writes the TorchScript archive with its first code file
// replaced by a forward returning "1+1+...+1" of about size bytes, stored
// with method; it streams to disk, so that the test process stays small
// (a child's peak RSS as the kernel reports it includes its parent's).
func writeWithCode(t *testing.T, path string, archive []byte, method uint16, size int) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	line := []byte(strings.Repeat("1+", 1<<18))
	replaced := false
	for _, f := range zr.File {
		data := readEntry(t, f)
		isCode := !replaced && strings.Contains(f.Name, "/code/") && strings.HasSuffix(f.Name, ".py")
		m := uint16(zip.Store)
		if isCode {
			m, replaced = method, true
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if !isCode {
			w.Write(data)
			continue
		}
		w.Write([]byte("def forward(self, x):\n    return "))
		for n := 0; n < size; n += len(line) {
			w.Write(line)
		}
		w.Write([]byte("1\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func readEntry(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(rc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCompressionBombs(t *testing.T) {
	dir := t.TempDir()
	var files []string
	sd := filepath.Join(dir, "state_dict-storage-inflating-to-256MiB.pt")
	if err := os.WriteFile(sd, deflatedStateDict(t, 1<<26), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, sd)
	if traced, err := os.ReadFile(filepath.Join(testfix.SharedDir(), "fixtures/torch/tiny_convnet/traced.pt")); err == nil {
		deflated := filepath.Join(dir, "torchscript-code-inflating-to-64MiB.pt")
		writeWithCode(t, deflated, traced, zip.Deflate, 64<<20)
		long := filepath.Join(dir, "torchscript-10MB-line-of-1+1.pt")
		writeWithCode(t, long, traced, zip.Store, 10<<20)
		files = append(files, deflated, long)
	} else {
		t.Logf("the TorchScript cases need the shared fixtures: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			st, _ := os.Stat(in)
			stderr, code, rss, took := runMeasured(t, "convert", "--quiet", in, filepath.Join(dir, "out.safetensors"))
			t.Logf("%d-byte file: exit %d, peak RSS %d MB, %v: %s", st.Size(), code, rss>>20, took.Round(time.Millisecond), strings.TrimSpace(stderr))
			if code == 0 {
				t.Errorf("a bomb converted")
			}
			if rss > bombRSS {
				t.Errorf("peak RSS %d MB, want under %d MB: the input was not bounded before memory was taken", rss>>20, bombRSS>>20)
			}
		})
	}
}

// A stored entry whose bytes no longer match its CRC-32 is refused by
// default and read with --ignore-crc.
func TestZipCRC(t *testing.T) {
	base := torchFixture(t, "torch/tiny_convnet/state_dict.pt")
	zr, err := zip.NewReader(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	var off int64 = -1
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/data/0") {
			off, _ = f.DataOffset()
		}
	}
	if off < 0 {
		t.Fatal("no data/0 entry in the fixture")
	}
	bad := bytes.Clone(base)
	bad[off+5] ^= 0x40 // one weight's bits change; the headers are intact
	dir := t.TempDir()
	in := filepath.Join(dir, "damaged.pt")
	if err := os.WriteFile(in, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBin(t, "convert", "--quiet", in, filepath.Join(dir, "a.safetensors"))
	if code == 0 || !strings.Contains(stderr, "CRC-32") || !strings.Contains(stderr, "--ignore-crc") {
		t.Errorf("a damaged entry: exit %d, %q; want a CRC-32 error pointing to --ignore-crc", code, stderr)
	}
	if _, stderr, code := runBin(t, "convert", "--quiet", "--ignore-crc", in, filepath.Join(dir, "b.safetensors")); code != 0 {
		t.Errorf("--ignore-crc: %s", stderr)
	}
}
