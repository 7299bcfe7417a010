package torchexport

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// torchPython returns the Python with PyTorch, or skips.
func torchPython(t *testing.T) string {
	t.Helper()
	return testfix.Torch(t)
}

func filled(name string, dt canon.DType, shape []int64) *canon.Tensor {
	t := &canon.Tensor{Name: name, DType: dt, Shape: shape}
	t.Data = make([]byte, t.ByteSize())
	for i := range t.Data {
		t.Data[i] = byte(i*7 + len(name))
		if dt == canon.Bool {
			t.Data[i] &= 1
		}
	}
	return t
}

func sampleEntries() []Entry {
	var es []Entry
	for _, dt := range []canon.DType{canon.Float32, canon.Float64, canon.Float16, canon.BFloat16, canon.Int8, canon.Int16, canon.Int32, canon.Int64, canon.Uint8, canon.Bool} {
		es = append(es, Entry{"t_" + dt.String(), filled(dt.String(), dt, []int64{2, 3})})
	}
	big := filled("big", canon.Float32, []int64{4, 5})
	es = append(es,
		Entry{"scalar", filled("s", canon.Int64, nil)},
		Entry{"empty", filled("e", canon.Float32, []int64{0, 3})},
		Entry{"big.weight", big},
		// Tied weight: the same bytes under another key.
		Entry{"tied.weight", &canon.Tensor{Name: "tied", DType: canon.Float32, Shape: []int64{4, 5}, Data: big.Data}},
		// A view: rows 2..3 of big.
		Entry{"view.rows", &canon.Tensor{Name: "view", DType: canon.Float32, Shape: []int64{2, 5}, Data: big.Data[40:80]}},
	)
	return es
}

// TestStateDictLayout checks the archive without torch: names, alignment,
// STORED entries, and that shared data was written once.
func TestStateDictLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weights.pt")
	if err := WriteStateDict(path, sampleEntries()); err != nil {
		t.Fatal(err)
	}
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
		if f.Method != zip.Store {
			t.Errorf("%s: method %d, want STORED", f.Name, f.Method)
		}
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		if off%dataAlignment != 0 {
			t.Errorf("%s: data at offset %d, not %d-byte aligned", f.Name, off, dataAlignment)
		}
		rc, err := f.Open() // checks the CRC on close
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, f.UncompressedSize64+1)
		n, _ := rc.Read(buf)
		for n < int(f.UncompressedSize64) {
			k, err := rc.Read(buf[n:])
			n += k
			if err != nil {
				break
			}
		}
		if err := rc.Close(); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	// 10 dtypes + scalar + empty + big (shared by tied and view) = 13 storages.
	want := 3 + 13
	if len(names) != want {
		t.Errorf("archive has %d entries, want %d: %v", len(names), want, names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "weights/") {
			t.Errorf("entry %s is not under weights/", n)
		}
	}
}

func TestStateDictRefusesUnsupported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.pt")
	err := WriteStateDict(path, []Entry{{"x", filled("x", canon.Uint16, []int64{2})}})
	if err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("want an error naming tensor x, got %v", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Error("a file was left behind after the error")
	}
	err = WriteStateDict(path, []Entry{{"x", filled("x", canon.Float32, []int64{2})}, {"x", filled("x", canon.Float32, []int64{2})}})
	if err == nil {
		t.Fatal("duplicate keys were accepted")
	}
	bad := filled("b", canon.Float32, []int64{2})
	bad.Data = bad.Data[:5]
	if err := WriteStateDict(path, []Entry{{"b", bad}}); err == nil {
		t.Fatal("a tensor with too few bytes was accepted")
	}
}

// TestStateDictLoadsInTorch loads the file with the real torch.load and
// compares keys, order, dtypes, shapes, bytes and storage sharing.
func TestStateDictLoadsInTorch(t *testing.T) {
	py := torchPython(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "weights.pt")
	entries := sampleEntries()
	if err := WriteStateDict(path, entries); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, json, torch
sd = torch.load(sys.argv[1])
out = []
for k, v in sd.items():
    b = v.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if v.numel() else b""
    out.append({"key": k, "dtype": str(v.dtype), "shape": list(v.shape), "hex": b.hex(),
                "ptr": v.storage().data_ptr(), "offset": v.storage_offset(), "type": type(sd).__name__})
print(json.dumps(out))
`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("torch.load failed: %v\n%s", err, out)
	}
	var got []struct {
		Key, Dtype, Hex, Type string
		Shape                 []int64
		Ptr, Offset           int64
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	torchDtype := map[canon.DType]string{canon.Float32: "torch.float32", canon.Float64: "torch.float64", canon.Float16: "torch.float16",
		canon.BFloat16: "torch.bfloat16", canon.Int8: "torch.int8", canon.Int16: "torch.int16", canon.Int32: "torch.int32",
		canon.Int64: "torch.int64", canon.Uint8: "torch.uint8", canon.Bool: "torch.bool"}
	if len(got) != len(entries) {
		t.Fatalf("torch.load gave %d tensors, want %d", len(got), len(entries))
	}
	ptrs := map[string]int64{}
	for i, e := range entries {
		g := got[i]
		ptrs[g.Key] = g.Ptr
		if g.Type != "OrderedDict" {
			t.Errorf("loaded a %s, want OrderedDict", g.Type)
		}
		if g.Key != e.Key || g.Dtype != torchDtype[e.Tensor.DType] || !equalShape(g.Shape, e.Tensor.Shape) {
			t.Errorf("entry %d: got %s %s %v, want %s %s %v", i, g.Key, g.Dtype, g.Shape, e.Key, torchDtype[e.Tensor.DType], e.Tensor.Shape)
		}
		if want := hexOf(e.Tensor.Data); g.Hex != want {
			t.Errorf("%s: bytes differ:\n got %s\nwant %s", e.Key, g.Hex, want)
		}
	}
	if ptrs["big.weight"] != ptrs["tied.weight"] || ptrs["big.weight"] != ptrs["view.rows"] {
		t.Errorf("tied weights and views do not share one storage after torch.load")
	}
	if got[len(got)-1].Offset != 10 {
		t.Errorf("view.rows has storage offset %d, want 10", got[len(got)-1].Offset)
	}
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}
