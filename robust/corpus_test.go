package robust

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// flipCount is how many bit-flipped copies of each base file are tried.
const flipCount = 20

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testfix.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convertWith runs the real command to make a base file in another format.
func convertWith(t *testing.T, in, out string, args ...string) {
	t.Helper()
	cmd := exec.Command(modelbridgeBin, append([]string{"convert", "--quiet", in, out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making %s: %v\n%s", out, err, b)
	}
}

// damageAll runs truncations, flips and the extra crafted files through
// convert with the given companions, and logs the distinct error messages
// so that they can be reviewed.
func damageAll(t *testing.T, name string, base []byte, extra []Damaged, companions ...companion) {
	t.Helper()
	cases := append(Truncations(base, 10), Flips(base, flipCount, int64(len(base)))...)
	cases = append(cases, extra...)
	for _, d := range cases {
		t.Run(d.Name, func(t *testing.T) {
			if line := convertDamaged(t, name, d.Data, companions...); line != "" {
				t.Log(line)
			}
		})
	}
}

func TestDamagedONNX(t *testing.T) {
	base := repoFile(t, "testdata/tiny_convnet.onnx")
	extra := append(absurdONNX(t), Damaged{"attribute-graphs-nested-10000-deep", nestedONNX(t, 10000)})
	damageAll(t, "model.onnx", base, extra)
}

func TestDamagedONNXExternalData(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.onnx")
	convertWith(t, filepath.Join(testfix.RepoRoot(), "testdata/tiny_convnet.onnx"), model, "--external-data")
	m, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(model + ".data")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("data", func(t *testing.T) {
		for _, d := range append(Truncations(data, 10), Flips(data, 5, 7)...) {
			t.Run(d.Name, func(t *testing.T) {
				convertDamaged(t, "model.onnx", m, companion{"model.onnx.data", d.Data})
			})
		}
	})
	t.Run("model", func(t *testing.T) {
		damageAll(t, "model.onnx", m, nil, companion{"model.onnx.data", data})
	})
}

func TestDamagedMXNet(t *testing.T) {
	dir := t.TempDir()
	convertWith(t, filepath.Join(testfix.RepoRoot(), "testdata/tiny_convnet.onnx"), filepath.Join(dir, "tiny-symbol.json"))
	sym, err := os.ReadFile(filepath.Join(dir, "tiny-symbol.json"))
	if err != nil {
		t.Fatal(err)
	}
	params, err := os.ReadFile(filepath.Join(dir, "tiny-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("symbol", func(t *testing.T) {
		extra := []Damaged{{"arrays-nested-100000-deep", deepJSON()}}
		damageAll(t, "tiny-symbol.json", sym, extra, companion{"tiny-0000.params", params})
	})
	t.Run("symbol-alone", func(t *testing.T) {
		for _, d := range absurdSymbol() {
			t.Run(d.Name, func(t *testing.T) { convertDamaged(t, "tiny-symbol.json", d.Data) })
		}
	})
	t.Run("params", func(t *testing.T) {
		damageAll(t, "tiny-0000.params", params, nil, companion{"tiny-symbol.json", sym})
	})
	t.Run("params-alone", func(t *testing.T) {
		for _, d := range absurdParams() {
			t.Run(d.Name, func(t *testing.T) { convertDamaged(t, "tiny-0000.params", d.Data) })
		}
	})
}

// torchFixture returns a shared fixture; it skips when the fixture folder
// is absent and fails when the folder exists but lacks the file.
func torchFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testfix.Fixtures(t), rel))
	if err != nil {
		t.Fatalf("fixture folder is incomplete: %v", err)
	}
	return b
}

func TestDamagedTorchZip(t *testing.T) {
	base := torchFixture(t, "torch/tiny_convnet/state_dict.pt")
	extra := []Damaged{
		{"zip-entries-declaring-4GiB", zipEntrySizes(base, 0xffffffff)},
		{"storage-failing-its-crc", crcDamaged(t, base)},
		{"storage-deflated-from-64MiB-of-zeros", deflatedStateDict(t, 1<<24)},
	}
	for _, p := range deepPickles() {
		extra = append(extra, Damaged{"data.pkl-" + p.Name, torchZip(t, p.Data)})
	}
	damageAll(t, "state_dict.pt", base, extra)
}

func TestDamagedTorchLegacy(t *testing.T) {
	base := torchFixture(t, "torch/tiny_convnet/state_dict_legacy.pt")
	var extra []Damaged
	for _, off := range legacyStorageSizes(base) {
		extra = append(extra, Damaged{"storage-declaring-2^40-elements", PatchUint64(base, off, huge)})
	}
	if len(extra) == 0 {
		t.Fatal("could not find the storage sizes in the legacy fixture")
	}
	extra = append(extra, deepPickles()...)
	damageAll(t, "state_dict_legacy.pt", base, extra)
}

func TestDamagedTorchScript(t *testing.T) {
	base := torchFixture(t, "torch/tiny_convnet/traced.pt")
	deep := strings.Repeat("(", 100000) + "x" + strings.Repeat(")", 100000)
	extra := []Damaged{
		{"code-nested-100000-deep", replaceCode(t, base, "def forward(self, x):\n    return "+deep+"\n")},
		{"code-garbage", replaceCode(t, base, "\x00\xff def (((:\n\tpass")},
	}
	damageAll(t, "traced.pt", base, extra)
}

// replaceCode rewrites a TorchScript archive with every code/*.py file
// replaced by src.
func replaceCode(t *testing.T, archive []byte, src string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f.Name, "/code/") && strings.HasSuffix(f.Name, ".py") {
			data = []byte(src)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// loadTensorFile reads a tensor file in process (as `run --input` does)
// and checks the error and the memory it took.
func loadTensorFile(t *testing.T, name string, data []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tt, err := tensorfile.Load(p)
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("reading a %d-byte file allocated %d MB", len(data), d>>20)
	}
	readcheck.CheckError(t, err)
	if err == nil {
		if cerr := tt.CheckData(); cerr != nil {
			t.Errorf("read without error but inconsistent: %v", cerr)
		}
		return
	}
	if msg := err.Error(); !strings.Contains(msg, p) || strings.Contains(msg, "\n") {
		t.Errorf("error should be one line naming the file: %q", msg)
	}
}

func TestDamagedTensorFiles(t *testing.T) {
	pb := repoFile(t, "testdata/tiny_convnet_data/input_0.pb")
	npyBase := repoFile(t, "internal/npy/testdata/f32_3x4.npy")
	for _, c := range []struct {
		name  string
		base  []byte
		extra []Damaged
	}{
		{"input_0.pb", pb, absurdTensorPB(t)},
		{"input_0.npy", npyBase, []Damaged{{"huge-shape", absurdNPY()}}},
	} {
		cases := append(Truncations(c.base, 10), Flips(c.base, 50, 3)...)
		for _, d := range append(cases, c.extra...) {
			t.Run(c.name+"/"+d.Name, func(t *testing.T) { loadTensorFile(t, c.name, d.Data) })
		}
	}
}

// crcDamaged flips one bit inside the first storage's bytes, leaving every
// header intact: only the CRC-32 can tell.
func crcDamaged(t *testing.T, base []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/data/0") {
			off, err := f.DataOffset()
			if err != nil {
				t.Fatal(err)
			}
			bad := bytes.Clone(base)
			bad[off+1] ^= 0x40
			return bad
		}
	}
	t.Fatal("no data/0 entry")
	return nil
}
