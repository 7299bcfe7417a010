// Package tensorfile loads and saves the tensors that `run` and `check`
// take as inputs and write as outputs: ONNX TensorProto (.pb) files and
// NumPy (.npy) arrays. It also makes random inputs for a graph.
package tensorfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// Load reads a .pb (TensorProto) or .npy file.
func Load(path string) (*canon.Tensor, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return npy.ReadFile(path)
	case ".pb":
		return onnxtensor.ReadFile(path)
	}
	return nil, fmt.Errorf("%s: unknown tensor file type; use .pb (ONNX TensorProto) or .npy", path)
}

// Save writes t as an ONNX TensorProto .pb file.
func Save(t *canon.Tensor, path string) error {
	return onnxtensor.WriteFile(t, path)
}

// LoadDir reads a folder of inputs for the given graph inputs: either
// input_0.pb, input_1.pb, ... in input order (ONNX test-data style), or
// files named after the inputs (NAME.pb or NAME.npy).
func LoadDir(dir string, inputs []canon.ValueInfo) (map[string]*canon.Tensor, error) {
	out := map[string]*canon.Tensor{}
	for i, in := range inputs {
		var found string
		for _, cand := range []string{
			fmt.Sprintf("input_%d.pb", i), fmt.Sprintf("input_%d.npy", i),
			safeName(in.Name) + ".pb", safeName(in.Name) + ".npy",
		} {
			p := filepath.Join(dir, cand)
			if _, err := os.Stat(p); err == nil {
				found = p
				break
			}
		}
		if found == "" {
			return nil, fmt.Errorf("%s: no file for input %q (looked for input_%d.pb/.npy and %s.pb/.npy)", dir, in.Name, i, safeName(in.Name))
		}
		t, err := Load(found)
		if err != nil {
			return nil, err
		}
		t.Name = in.Name
		out[in.Name] = t
	}
	return out, nil
}

// safeName turns a value name into a file name.
func safeName(name string) string {
	r := strings.NewReplacer("/", "_", "\\", "_", ":", "_")
	return r.Replace(name)
}

// OutputFileName is the file `run` writes output i to.
func OutputFileName(i int) string { return fmt.Sprintf("output_%d.pb", i) }

// Random makes one random tensor per graph input, of the input's dtype:
// floats (float16, bfloat16, float32, float64) uniform in [-1, 1), booleans
// random, integers 0 or 1 at random (every integer dtype, written in its own
// width: small enough to be a valid index into any axis of two or more, a
// count, a size or a shift). Unknown dimensions become 1 unless shapes
// overrides them (by input name).
func Random(inputs []canon.ValueInfo, shapes map[string][]int64, seed uint64) (map[string]*canon.Tensor, error) {
	return RandomWithin(inputs, shapes, seed, 0)
}

// RandomWithin is Random with the inputs' total size bounded by maxBytes
// (0: no bound besides 4 GiB per input), checked before each allocation:
// the interpreter's memory budget (--max-memory) covers random inputs too.
func RandomWithin(inputs []canon.ValueInfo, shapes map[string][]int64, seed uint64, maxBytes int64) (map[string]*canon.Tensor, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := map[string]*canon.Tensor{}
	var total int64
	for _, in := range inputs {
		shape, ok := shapes[in.Name]
		if !ok {
			if !in.RankKnown {
				return nil, fmt.Errorf("input %q has an unknown rank; give its shape with --input-shape %s=1,3,224,224", in.Name, in.Name)
			}
			shape = make([]int64, len(in.Shape))
			for i, d := range in.Shape {
				shape[i] = 1
				if d.Known() {
					shape[i] = d.Size
				}
			}
		}
		t := &canon.Tensor{Name: in.Name, DType: in.DType, Shape: shape}
		if in.DType == canon.String {
			if err := randomStrings(t, rng, maxBytes, &total); err != nil {
				return nil, err
			}
			out[in.Name] = t
			continue
		}
		size := t.ByteSize()
		if size < 0 || size > 1<<32 {
			return nil, fmt.Errorf("input %q: shape %v is too large for random data", in.Name, shape)
		}
		if total += size; maxBytes > 0 && total > maxBytes {
			return nil, fmt.Errorf("random input %q of shape %v brings the inputs to %d bytes, beyond the memory limit of %d (--max-memory)", in.Name, shape, total, maxBytes)
		}
		t.Data = make([]byte, size)
		n := int(t.NumElements())
		switch in.DType {
		case canon.Float32:
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(float32(rng.Float64()*2-1)))
			}
		case canon.Float64:
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(rng.Float64()*2-1))
			}
		case canon.Float16:
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint16(t.Data[2*i:], canon.Float32ToHalf(float32(rng.Float64()*2-1)))
			}
		case canon.BFloat16:
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint16(t.Data[2*i:], canon.Float32ToBFloat16(float32(rng.Float64()*2-1)))
			}
		case canon.Bool:
			for i := 0; i < n; i++ {
				t.Data[i] = byte(rng.IntN(2))
			}
		case canon.Int8, canon.Uint8, canon.Int16, canon.Uint16, canon.Int32, canon.Uint32, canon.Int64, canon.Uint64:
			// Little-endian: value 0 or 1 is its first byte, the rest zero.
			w := in.DType.Size()
			for i := 0; i < n; i++ {
				t.Data[i*w] = byte(rng.IntN(2))
			}
		}
		out[in.Name] = t
	}
	return out, nil
}

// ParseShapes parses --input-shape values "name=1,3,224,224" into the
// concrete shapes that inputs are made with: a symbolic dimension ("N")
// takes size 1 there.
func ParseShapes(specs []string) (map[string][]int64, error) {
	shapes, names, err := ParseInputShapes(specs)
	for key, axes := range names {
		for axis := range axes {
			shapes[key][axis] = 1
		}
	}
	return shapes, err
}

// ParseInputShapes parses --input-shape values for reading a model: each
// dimension is a size or a name (a symbolic size such as N or batch), which
// is -1 in shapes and named in names (input key, then axis).
func ParseInputShapes(specs []string) (map[string][]int64, map[string]map[int]string, error) {
	shapes := map[string][]int64{}
	names := map[string]map[int]string{}
	for _, s := range specs {
		name, dims, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return nil, nil, fmt.Errorf("--input-shape %q: want NAME=D1,D2,... (e.g. data=1,3,224,224 or data=N,3,224,224)", s)
		}
		if _, rest, typed, err := cutDTypePrefix(dims); err != nil {
			return nil, nil, fmt.Errorf("--input-shape %q: %v", s, err)
		} else if typed {
			dims = rest
		}
		var shape []int64
		dims = xSeparated(dims)
		for axis, d := range strings.Split(dims, ",") {
			d = strings.TrimSpace(d)
			if isDimName(d) {
				if names[name] == nil {
					names[name] = map[int]string{}
				}
				names[name][axis] = d
				shape = append(shape, -1)
				continue
			}
			v, err := strconv.ParseInt(d, 10, 64)
			if err != nil || v < 0 {
				if fix := respellDims(dims); fix != "" {
					return nil, nil, fmt.Errorf("--input-shape %q: %q is neither a size nor a dimension name; write %s=%s", s, d, name, fix)
				}
				return nil, nil, fmt.Errorf("--input-shape %q: %q is neither a size nor a dimension name (a letter or _ then letters, digits or _)", s, d)
			}
			shape = append(shape, v)
		}
		shapes[name] = shape
	}
	return shapes, names, nil
}

// xSeparated turns the "1x3x64x64" spelling (sizes only) into "1,3,64,64";
// anything else is returned as it is.
func xSeparated(dims string) string {
	if strings.Contains(dims, ",") || !strings.Contains(dims, "x") {
		return dims
	}
	parts := strings.Split(dims, "x")
	for _, p := range parts {
		if _, err := strconv.ParseUint(strings.TrimSpace(p), 10, 63); err != nil {
			return dims
		}
	}
	return strings.Join(parts, ",")
}

// respellDims suggests the comma spelling of dims written with brackets,
// spaces, '*' or ':' between sizes ("[1, 3, 64, 64]", "1 3 64 64"), or ""
// when dims are not sizes.
func respellDims(dims string) string {
	fields := strings.FieldsFunc(dims, func(r rune) bool {
		return strings.ContainsRune("[]() ,*:xX;", r)
	})
	if len(fields) == 0 {
		return ""
	}
	for _, f := range fields {
		if _, err := strconv.ParseUint(f, 10, 63); err != nil && !isDimName(f) {
			return ""
		}
	}
	return strings.Join(fields, ",")
}

// isDimName reports whether s names a symbolic dimension: an identifier.
func isDimName(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// SortedNames returns the keys of m in order.
func SortedNames(m map[string]*canon.Tensor) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
