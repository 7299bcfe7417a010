package torchscript

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// rootPickle is data.pkl for an attribute-less object of class __torch__.M:
// PROTO 2, GLOBAL, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BUILD, STOP.
const rootPickle = "\x80\x02c__torch__\nM\n)\x81}b."

// writeArchive writes a zip with every entry under folder "arch/".
func writeArchive(t *testing.T, files map[string]string, method uint16) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.pt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "arch/" + name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func moduleSource(body string) string {
	return "class M(Module):\n  __parameters__ = []\n  __buffers__ = []\n  training : bool\n" +
		"  def forward(self: __torch__.M,\n    x: Tensor) -> Tensor:\n" + body
}

func TestHandWrittenArchive(t *testing.T) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		p := writeArchive(t, map[string]string{
			"data.pkl":          rootPickle,
			"constants.pkl":     "\x80\x02).",
			"code/__torch__.py": moduleSource("    _0 = torch.hardtanh_(torch.mul(x, -2), 0., 6.)\n    _1, _2, = torch.chunk(_0, 2, 1)\n    return torch.cat([_2, _1], -1)\n"),
		}, method)
		g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {1, 4}}})
		if err != nil {
			t.Fatalf("method %d: %v", method, err)
		}
		x := canon.NewFloat32Tensor("x", []int64{1, 4}, []float32{-1, -2, 1, -4})
		outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := outs["output"].Float64s()
		want := []float64{0, 6, 2, 4} // clip(-2x, 0, 6) = [2 4 0 6], halves swapped
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("method %d: got %v, want %v", method, got, want)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"control flow", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": moduleSource("    y = torch.relu(x)\n    with torch.no_grad():\n      y = x\n    return y\n")},
			"control flow is not supported: code/__torch__.py:8: with torch.no_grad():"},
		{"unsupported op", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": moduleSource("    y = torch.relu(x)\n    return torch.erfinv(y)\n")},
			"code/__torch__.py:8: operator torch.erfinv is not supported"},
		{"garbage source", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": "class M(Module):\n  def forward(self, x):\n    return torch.relu(x\n"},
			"code/__torch__.py:4: unclosed bracket"},
		{"binary source", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": "\x00\xff\xfe garbage"},
			"code/__torch__.py:1: unexpected character"},
		{"deep nesting", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": moduleSource("    return " + strings.Repeat("-", 5000) + "x\n")},
			"nested too deeply"},
		{"recursion", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": moduleSource("    return (self).forward(x, )\n")},
			"recursion"},
		{"forbidden global", map[string]string{"data.pkl": "\x80\x02cos\nsystem\n.",
			"code/__torch__.py": moduleSource("    return x\n")},
			"os.system"},
		{"missing storage", map[string]string{
			"data.pkl":          "\x80\x02c__torch__\nM\n)\x81}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQK\x00K\x04\x85K\x01\x85\x89tRsb.",
			"code/__torch__.py": moduleSource("    return torch.add(x, self.w)\n")},
			"no entry arch/data/0"},
		{"short storage", map[string]string{
			"data.pkl":          "\x80\x02c__torch__\nM\n)\x81}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQK\x00K\x04\x85K\x01\x85\x89tRsb.",
			"data/0":            "\x00\x00\x80\x3f",
			"code/__torch__.py": moduleSource("    return torch.add(x, self.w)\n")},
			"holds 4 bytes, fewer than its 4 elements"},
		{"not torchscript", map[string]string{"other/file.txt": "hello"}, "not a TorchScript archive"},
		{"unknown input name", map[string]string{"data.pkl": rootPickle,
			"code/__torch__.py": moduleSource("    return x\n")},
			"--input-shape names nope, but forward's inputs are: x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeArchive(t, c.files, zip.Deflate)
			opts := formats.ReadOptions{}
			if c.name == "unknown input name" {
				opts.InputShapes = map[string][]int64{"nope": {1}}
			}
			g, err := ReadFile(p, opts)
			if err == nil {
				g.Close()
				t.Fatalf("imported; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestUnsupportedOpType checks that an unknown operator is reported as an
// UnsupportedOpError with its location.
func TestUnsupportedOpType(t *testing.T) {
	p := writeArchive(t, map[string]string{"data.pkl": rootPickle,
		"code/__torch__.py": moduleSource("    return torch.erfinv(x)\n")}, zip.Store)
	_, err := ReadFile(p, formats.ReadOptions{})
	var uo *UnsupportedOpError
	if !errors.As(err, &uo) || uo.Op != "torch.erfinv" || uo.File != "code/__torch__.py" || uo.Line != 7 {
		t.Fatalf("got %v (%#v)", err, uo)
	}
}

// TestTruncatedFixture cuts a real archive at many points: every cut must
// be an error (or, past the central directory's needs, a clean import),
// never a panic.
func TestTruncatedFixture(t *testing.T) {
	src := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet", "traced.pt")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("fixture folder is incomplete: %v", err)
	}
	dir := t.TempDir()
	for _, cut := range []int{0, 10, 100, len(data) / 4, len(data) / 2, len(data) - 100, len(data) - 1} {
		p := filepath.Join(dir, "cut.pt")
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := ReadFile(p, formats.ReadOptions{})
		if err == nil {
			g.Close()
			t.Errorf("cut at %d of %d: imported", cut, len(data))
			continue
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("cut at %d: error %q does not name the file", cut, err)
		}
	}
	// Corrupt bytes inside the archive (not its directory) must not panic.
	for _, at := range []int{len(data) / 8, len(data) / 3, len(data) / 2} {
		bad := append([]byte{}, data...)
		for i := at; i < at+64 && i < len(bad); i++ {
			bad[i] ^= 0x5a
		}
		p := filepath.Join(dir, "bad.pt")
		os.WriteFile(p, bad, 0o644)
		if g, err := ReadFile(p, formats.ReadOptions{}); err == nil {
			g.Close()
		}
	}
}

// TestHandWrittenWeight reads a weight from data/ through data.pkl's
// persistent id and checks its name and value reach the graph.
func TestHandWrittenWeight(t *testing.T) {
	p := writeArchive(t, map[string]string{
		"data.pkl":          "\x80\x02c__torch__\nM\n)\x81}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQK\x00K\x04\x85K\x01\x85\x89tRsb.",
		"data/0":            string(canon.NewFloat32Tensor("", []int64{4}, []float32{1, 2, 3, 4}).Data),
		"code/__torch__.py": moduleSource("    w = self.w\n    return torch.add(x, w, alpha=2)\n"),
	}, zip.Store)
	g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {4}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Initializer("w") == nil {
		t.Fatalf("weight w missing: %v", g.Initializers)
	}
	x := canon.NewFloat32Tensor("x", []int64{4}, []float32{10, 10, 10, 10})
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := outs["output"].Float64s()
	for i, want := range []float64{12, 14, 16, 18} {
		if got[i] != want {
			t.Fatalf("got %v, want [12 14 16 18]", got)
		}
	}
}
