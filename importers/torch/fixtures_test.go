package torchimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

func readOK(t *testing.T, path string, opts formats.ReadOptions) *canon.Graph {
	t.Helper()
	g, err := Read(path, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { g.Close() })
	if err := g.Validate(); err != nil {
		t.Fatalf("%s: invalid graph: %v", path, err)
	}
	return g
}

// The state dicts PyTorch saved (zip and legacy) hold the same names,
// shapes, dtypes and bytes as the initializers torch.onnx exported.
func TestStateDictsMatchONNX(t *testing.T) {
	fix := testfix.Fixtures(t)
	models, _ := filepath.Glob(filepath.Join(fix, "torch", "*", "model.onnx"))
	if len(models) == 0 {
		t.Fatal("no torch fixtures")
	}
	for _, model := range models {
		dir := filepath.Dir(model)
		og, err := onnximport.Read(model, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := og.InitializerIndex()
		var zipNames []string
		for _, name := range []string{"state_dict.pt", "state_dict_legacy.pt"} {
			g := readOK(t, filepath.Join(dir, name), formats.ReadOptions{})
			if g.Meta.SourceFormat != "torch" || len(g.Nodes) != 0 {
				t.Errorf("%s: not a weights-only torch graph", name)
			}
			compared := 0
			var names []string
			for _, w := range g.Initializers {
				names = append(names, w.Name)
				if w.Layout != "" {
					t.Errorf("%s: %s has layout %s; no node says what it is", name, w.Name, w.Layout)
				}
				r := ref[w.Name]
				if r == nil {
					continue
				}
				compared++
				if r.DType != w.DType || !equalShape(r.Shape, w.Shape) || !bytes.Equal(r.Data, w.Data) {
					t.Errorf("%s/%s: %s: %s%v differs from ONNX %s%v", filepath.Base(dir), name, w.Name, w.DType, w.Shape, r.DType, r.Shape)
				}
			}
			if compared == 0 {
				t.Errorf("%s/%s: no initializer name in common with model.onnx", filepath.Base(dir), name)
			}
			if name == "state_dict.pt" {
				zipNames = names
			} else if strings.Join(names, ",") != strings.Join(zipNames, ",") {
				t.Errorf("%s: legacy and zip files list different tensors", filepath.Base(dir))
			}
			t.Logf("%s/%s: %d tensors, %d compared bit-exact with model.onnx", filepath.Base(dir), name, len(g.Initializers), compared)
		}
		og.Close()
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

// torchDumpScript loads files with PyTorch and prints, per file, every
// tensor reachable through nested dicts/lists with its dotted name, dtype,
// shape and the SHA-256 of its contiguous little-endian bytes.
const torchDumpScript = `
import sys, json, hashlib, torch
def walk(v, name, out):
    if isinstance(v, torch.Tensor):
        t = v.detach().contiguous()
        b = t.view(torch.uint8).numpy().tobytes() if t.numel() and t.dim() else t.reshape(-1).view(torch.uint8).numpy().tobytes()
        out[name or "tensor"] = {"dtype": str(t.dtype), "shape": list(t.shape), "sha": hashlib.sha256(b).hexdigest()}
    elif isinstance(v, dict):
        for k, x in v.items():
            walk(x, (name + "." if name else "") + str(k), out)
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            walk(x, (name + "." if name else "") + str(i), out)
res = {}
for f in sys.argv[1:]:
    try:
        out = {}
        walk(torch.load(f, map_location="cpu"), "", out)
        res[f] = out
    except Exception as e:
        res[f] = {"error": str(e)}
json.dump(res, sys.stdout)
`

var torchDTypes = map[string]canon.DType{
	"torch.float32": canon.Float32, "torch.float64": canon.Float64, "torch.float16": canon.Float16,
	"torch.bfloat16": canon.BFloat16, "torch.int64": canon.Int64, "torch.int32": canon.Int32,
	"torch.int16": canon.Int16, "torch.int8": canon.Int8, "torch.uint8": canon.Uint8, "torch.bool": canon.Bool,
}

// Every fixture that imports agrees with what PyTorch itself loads: same
// dtype, shape and bytes for each name (names under a selected checkpoint
// key are compared with the key prefixed).
func TestAgainstPyTorch(t *testing.T) {
	fix := testfix.Fixtures(t)
	python := testfix.Torch(t)
	files := fixtureFiles(t, fix)
	var loadable []string
	for _, f := range files {
		if _, err := Read(f, formats.ReadOptions{}); err == nil {
			loadable = append(loadable, f)
		}
	}
	out, err := exec.Command(python, append([]string{"-c", torchDumpScript}, loadable...)...).Output()
	if err != nil {
		t.Fatalf("torch dump: %v", err)
	}
	var ref map[string]map[string]struct {
		DType string  `json:"dtype"`
		Shape []int64 `json:"shape"`
		SHA   string  `json:"sha"`
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range loadable {
		g := readOK(t, f, formats.ReadOptions{})
		prefix := ""
		for _, p := range g.Meta.Props {
			if p.Key == "torch.key" {
				prefix = p.Value + "."
			}
		}
		want := ref[f]
		for _, w := range g.Initializers {
			r, ok := want[prefix+w.Name]
			if !ok {
				r, ok = want[w.Name]
			}
			if !ok {
				t.Errorf("%s: %s not among PyTorch's tensors", rel(fix, f), w.Name)
				continue
			}
			sum := sha256.Sum256(w.Data)
			if torchDTypes[r.DType] != w.DType || !equalShape(r.Shape, w.Shape) || hex.EncodeToString(sum[:]) != r.SHA {
				t.Errorf("%s: %s: got %s%v, PyTorch has %s%v (bytes equal: %v)", rel(fix, f), w.Name, w.DType, w.Shape, r.DType, r.Shape, hex.EncodeToString(sum[:]) == r.SHA)
			}
			total++
		}
	}
	t.Logf("%d tensors in %d files identical to PyTorch's torch.load", total, len(loadable))
}

func rel(fix, f string) string {
	r, _ := filepath.Rel(fix, f)
	return r
}

func fixtureFiles(t *testing.T, fix string) []string {
	var files []string
	for _, pat := range []string{"torch-files/gopickle/*", "torch-files/burn/*", "torch-files/candle/*", "torch/*/state_dict*.pt"} {
		m, _ := filepath.Glob(filepath.Join(fix, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no torch-files fixtures")
	}
	return files
}

// Each third-party torch.save file either imports or fails with a specific
// message; the table records which, so that a change in either shows up.
func TestTorchFilesTable(t *testing.T) {
	fix := testfix.Fixtures(t)
	wantErr := map[string]string{
		"torch-files/burn/broken.pt": "not a PyTorch file",
	}
	wantTensors := map[string][]string{
		"torch-files/burn/checkpoint.pt":                   {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"},
		"torch-files/burn/top_level_key__top_level_key.pt": {"my_state_dict.conv1.weight", "my_state_dict.conv1.bias"},
		"torch-files/candle/test_with_key.pt":              {"test"},
		"torch-files/burn/nested_dict.pt":                  {"layer1.weight", "layer1.bias", "layer2.weight", "layer2.bias"},
		"torch-files/gopickle/tensor_bfloat16_proto1.pt":   {"tensor"},
		"torch-files/burn/config__weights_with_config.pt":  {"my_model.fc1.weight", "my_model.fc1.bias", "my_model.fc2.weight"},
		"torch-files/burn/legacy_shared_storage.pt":        {"view1", "view2", "view3"},
	}
	for _, f := range fixtureFiles(t, fix) {
		name := filepath.ToSlash(rel(fix, f))
		g, err := Read(f, formats.ReadOptions{})
		if msg, bad := wantErr[name]; bad {
			if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), f) {
				t.Errorf("%s: want error containing %q and the file name, got %v", name, msg, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := g.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if want, ok := wantTensors[name]; ok {
			var got []string
			for _, w := range g.Initializers {
				got = append(got, w.Name)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: tensors %v, want %v", name, got, want)
			}
		}
		g.Close()
	}
}

// Checkpoints: the weights come from the conventional key, other entries
// are listed as skipped; --key selects explicitly and names the choices
// when wrong.
func TestCheckpointKeys(t *testing.T) {
	fix := testfix.Fixtures(t)
	g := readOK(t, filepath.Join(fix, "torch-files/burn/checkpoint.pt"), formats.ReadOptions{})
	props := map[string]string{}
	for _, p := range g.Meta.Props {
		props[p.Key] = p.Value
	}
	if props["torch.key"] != "model_state_dict" || props["torch.skipped.epoch"] == "" || !strings.Contains(props["torch.skipped.optimizer_state_dict"], "dict") {
		t.Errorf("props %v", g.Meta.Props)
	}
	g = readOK(t, filepath.Join(fix, "torch-files/burn/top_level_key__top_level_key.pt"), formats.ReadOptions{Key: "my_state_dict"})
	if g.Initializers[0].Name != "conv1.weight" {
		t.Errorf("--key: first tensor %s", g.Initializers[0].Name)
	}
	_, err := Read(filepath.Join(fix, "torch-files/burn/top_level_key__top_level_key.pt"), formats.ReadOptions{Key: "nope"})
	if err == nil || !strings.Contains(err.Error(), `"my_state_dict"`) {
		t.Errorf("bad --key: %v", err)
	}
	g = readOK(t, filepath.Join(fix, "torch-files/burn/config__weights_with_config.pt"), formats.ReadOptions{})
	found := false
	for _, p := range g.Meta.Props {
		if p.Key == "torch.skipped.my_config.n_head" && p.Value == "2" {
			found = true
		}
	}
	if !found {
		t.Errorf("config values not listed: %v", g.Meta.Props)
	}
}

// Views of one storage: shared bytes stay shared (no copy), and each view
// starts at its storage offset, as PyTorch reads them.
func TestSharedStorageAndViews(t *testing.T) {
	fix := testfix.Fixtures(t)
	g := readOK(t, filepath.Join(fix, "torch-files/burn/legacy_uncloned_views.pt"), formats.ReadOptions{})
	a, b := g.Initializers[0], g.Initializers[1]
	if a.Name != "tensor1" || b.Name != "tensor2" || len(a.Data) != 40 || len(b.Data) != 40 {
		t.Fatalf("got %s (%d B), %s (%d B); want tensor1 and tensor2 of 40 B", a.Name, len(a.Data), b.Name, len(b.Data))
	}
	// tensor1 is storage[10:20], tensor2 storage[50:60] of one 100-float
	// storage: tensor2 must start 40 floats after tensor1 in the same array.
	start := uintptr(unsafe.Pointer(unsafe.SliceData(a.Data)))
	other := uintptr(unsafe.Pointer(unsafe.SliceData(b.Data)))
	if other-start != 160 {
		t.Errorf("tensor2 starts %d bytes after tensor1; want 160 (one shared storage)", int64(other)-int64(start))
	}
	av, _ := a.Float64s()
	bv, _ := b.Float64s()
	if av[0] != 10 || av[9] != 19 || bv[0] != 50 || bv[9] != 59 {
		t.Errorf("values %v / %v; want 10..19 and 50..59", av, bv)
	}
	// Sequential children with gaps in their indexes keep their names and
	// values (values printed by torch.load).
	g = readOK(t, filepath.Join(fix, "torch-files/burn/non_contiguous_indexes__non_contiguous_indexes.pt"), formats.ReadOptions{})
	want := map[string][]float32{
		"fc.0.weight": {0.12144870311021805, -0.10403385013341904, -0.045693591237068176},
		"fc.8.bias":   {-0.00800357386469841, -0.12744785845279694},
	}
	found := 0
	for _, w := range g.Initializers {
		exp, ok := want[w.Name]
		if !ok {
			continue
		}
		found++
		vals, _ := w.Float64s()
		for i, v := range exp {
			if float32(vals[i]) != v {
				t.Errorf("%s[%d] = %v, want %v", w.Name, i, vals[i], v)
			}
		}
	}
	if found != len(want) || len(g.Initializers) != 10 {
		t.Errorf("found %d of %d checked weights among %d (want 10)", found, len(want), len(g.Initializers))
	}
}
