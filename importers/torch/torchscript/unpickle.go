package torchscript

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// storageDTypes maps torch's typed storage classes to element types.
var storageDTypes = map[string]canon.DType{
	"FloatStorage": canon.Float32, "DoubleStorage": canon.Float64, "HalfStorage": canon.Float16,
	"BFloat16Storage": canon.BFloat16, "LongStorage": canon.Int64, "IntStorage": canon.Int32,
	"ShortStorage": canon.Int16, "CharStorage": canon.Int8, "ByteStorage": canon.Uint8,
	"BoolStorage": canon.Bool,
}

// storageRef is one persistent storage: an entry <folder>/<dir>/<key>.
type storageRef struct {
	dtype canon.DType
	entry string
	numel int64
}

// tensorRef is a tensor rebuilt from a pickle: a strided view of a storage.
type tensorRef struct {
	storage *storageRef
	offset  int64
	size    []int64
	stride  []int64
	loaded  *canon.Tensor
}

// storageClass is what FindClass returns for torch.*Storage names.
type storageClass struct {
	pickle.Global
	dtype canon.DType
}

// jitPickleHelpers are torch.jit._pickle functions: each wraps a list (or
// tags a value with its type) and the wrapped value is what matters here.
var jitPickleHelpers = map[string]bool{
	"build_intlist": true, "build_tensorlist": true, "build_doublelist": true,
	"build_boollist": true, "restore_type_tag": true, "build_complexlist": true,
}

// findClass resolves only the globals a TorchScript archive needs.
func findClass(module, name string) (pickle.Value, error) {
	if v, ok := quantizedGlobal(module, name); ok {
		return v, nil
	}
	switch {
	case module == "torch._utils" && name == "_rebuild_tensor_v2":
		return rebuildTensor, nil
	case module == "torch._utils" && name == "_rebuild_parameter":
		return rebuildParameter, nil
	case module == "torch" && storageDTypes[name] != canon.Undefined:
		return &storageClass{Global: pickle.Global{Module: module, Name: name}, dtype: storageDTypes[name]}, nil
	case module == "collections" && name == "OrderedDict":
		return pickle.OrderedDict, nil
	case module == "__torch__" || strings.HasPrefix(module, "__torch__."):
		return &pickle.Global{Module: module, Name: name}, nil
	case module == "torch.jit._pickle" && jitPickleHelpers[name]:
		return &pickle.Func{Global: pickle.Global{Module: module, Name: name}, Fn: func(args []pickle.Value) (pickle.Value, error) {
			if len(args) < 1 {
				return nil, fmt.Errorf("torch.jit._pickle.%s: no argument", name)
			}
			return args[0], nil
		}}, nil
	}
	return nil, &pickle.ForbiddenGlobalError{Module: module, Name: name}
}

var rebuildTensor = &pickle.Func{
	Global: pickle.Global{Module: "torch._utils", Name: "_rebuild_tensor_v2"},
	Fn: func(args []pickle.Value) (pickle.Value, error) {
		if len(args) < 4 {
			return nil, fmt.Errorf("_rebuild_tensor_v2: %d arguments, want at least 4", len(args))
		}
		st, ok := args[0].(*storageRef)
		if !ok {
			return nil, fmt.Errorf("_rebuild_tensor_v2: first argument is %s, not a storage", pickle.TypeName(args[0]))
		}
		off, ok := args[1].(int64)
		if !ok || off < 0 {
			return nil, fmt.Errorf("_rebuild_tensor_v2: bad storage offset %s", pickle.Format(args[1]))
		}
		size, err := intTuple(args[2])
		if err != nil {
			return nil, fmt.Errorf("_rebuild_tensor_v2: size: %v", err)
		}
		stride, err := intTuple(args[3])
		if err != nil {
			return nil, fmt.Errorf("_rebuild_tensor_v2: stride: %v", err)
		}
		if len(size) != len(stride) {
			return nil, fmt.Errorf("_rebuild_tensor_v2: size %v and stride %v differ in rank", size, stride)
		}
		return &tensorRef{storage: st, offset: off, size: size, stride: stride}, nil
	},
}

var rebuildParameter = &pickle.Func{
	Global: pickle.Global{Module: "torch._utils", Name: "_rebuild_parameter"},
	Fn: func(args []pickle.Value) (pickle.Value, error) {
		if len(args) < 1 {
			return nil, fmt.Errorf("_rebuild_parameter: no tensor")
		}
		return args[0], nil
	},
}

func intTuple(v pickle.Value) ([]int64, error) {
	t, ok := v.(*pickle.Tuple)
	if !ok {
		return nil, fmt.Errorf("want a tuple of ints, got %s", pickle.TypeName(v))
	}
	out := make([]int64, len(t.Items))
	for i, it := range t.Items {
		n, ok := it.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("want non-negative ints, got %s", pickle.Format(v))
		}
		out[i] = n
	}
	return out, nil
}

// unpickleArchive decodes data.pkl or constants.pkl; storages resolve to
// entries of dir ("data" or "constants").
func unpickleArchive(a *archive, name, dir string) (pickle.Value, error) {
	raw, err := a.read(name)
	if err != nil {
		return nil, err
	}
	v, err := pickle.Unpickle(raw, pickle.Options{
		FindClass: findClass,
		PersistentLoad: func(pid pickle.Value) (pickle.Value, error) {
			t, ok := pid.(*pickle.Tuple)
			if !ok || len(t.Items) != 5 {
				return nil, fmt.Errorf("persistent id %s is not ('storage', type, key, location, numel)", pickle.Format(pid))
			}
			if s, _ := t.Items[0].(string); s != "storage" {
				return nil, fmt.Errorf("persistent id kind %s is not 'storage'", pickle.Format(t.Items[0]))
			}
			cls, ok := t.Items[1].(*storageClass)
			if !ok {
				return nil, fmt.Errorf("storage type %s is not a torch storage class", pickle.Format(t.Items[1]))
			}
			key, ok := t.Items[2].(string)
			if !ok || key == "" || strings.ContainsAny(key, "/\\") || key == "." || key == ".." {
				return nil, fmt.Errorf("storage key %s is not a plain entry name", pickle.Format(t.Items[2]))
			}
			numel, ok := t.Items[4].(int64)
			if !ok || numel < 0 {
				return nil, fmt.Errorf("storage element count %s is invalid", pickle.Format(t.Items[4]))
			}
			entry := dir + "/" + key
			if !a.has(entry) {
				return nil, fmt.Errorf("storage %s: the archive has no entry %s%s", key, a.prefix, entry)
			}
			return &storageRef{dtype: cls.dtype, entry: entry, numel: numel}, nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s%s: %w", a.path, a.prefix, name, err)
	}
	return v, nil
}

// load materializes the tensor as a dense row-major canon.Tensor. A
// contiguous view points into the archive's bytes; any other view is copied.
func (t *tensorRef) load(a *archive, name string) (*canon.Tensor, error) {
	if t.loaded != nil {
		return t.loaded, nil
	}
	es := int64(t.storage.dtype.Size())
	raw, err := a.read(t.storage.entry)
	if err != nil {
		return nil, err
	}
	if n := canon.NumElements([]int64{t.storage.numel, es}); n < 0 || n > int64(len(raw)) {
		return nil, fmt.Errorf("%s: tensor %s: storage %s%s holds %d bytes, fewer than its %d elements of %s need (truncated?)", a.path, name, a.prefix, t.storage.entry, len(raw), t.storage.numel, t.storage.dtype)
	}
	numel := canon.NumElements(t.size)
	if numel < 0 {
		return nil, fmt.Errorf("%s: tensor %s: shape %v overflows", a.path, name, t.size)
	}
	// The highest element the view touches must lie inside the storage.
	last := t.offset
	if numel > 0 {
		for i, s := range t.size {
			// Bound the sum, not each term: terms that fit can still add
			// up past int64 and wrap around to a small index.
			if t.stride[i] > 0 && s-1 > (math.MaxInt64-last)/t.stride[i] {
				return nil, fmt.Errorf("%s: tensor %s: strides %v overflow", a.path, name, t.stride)
			}
			last += (s - 1) * t.stride[i]
		}
		if last >= t.storage.numel || last < 0 {
			return nil, fmt.Errorf("%s: tensor %s: view (offset %d, size %v, stride %v) reaches past its storage of %d elements", a.path, name, t.offset, t.size, t.stride, t.storage.numel)
		}
	}
	if numel > math.MaxInt64/es {
		return nil, fmt.Errorf("%s: tensor %s: shape %v overflows", a.path, name, t.size)
	}
	if err := a.charge("tensor "+name, numel*es); err != nil {
		return nil, fmt.Errorf("%s: %w", a.path, err)
	}
	out := &canon.Tensor{Name: name, DType: t.storage.dtype, Shape: append([]int64{}, t.size...)}
	if isContiguous(t.size, t.stride) {
		out.Data = raw[t.offset*es : (t.offset+numel)*es]
	} else {
		out.Data = make([]byte, numel*es)
		idx := make([]int64, len(t.size))
		for k := int64(0); k < numel; k++ {
			src := t.offset
			for i := range idx {
				src += idx[i] * t.stride[i]
			}
			copy(out.Data[k*es:(k+1)*es], raw[src*es:(src+1)*es])
			for i := len(idx) - 1; i >= 0; i-- {
				idx[i]++
				if idx[i] < t.size[i] {
					break
				}
				idx[i] = 0
			}
		}
	}
	t.loaded = out
	return out, nil
}

func isContiguous(size, stride []int64) bool {
	want := int64(1)
	for i := len(size) - 1; i >= 0; i-- {
		if size[i] != 1 && stride[i] != want {
			return false
		}
		want *= size[i]
	}
	return true
}

// scalarInt64 reads the single element of an integer tensor.
func scalarInt64(t *canon.Tensor) (int64, bool) {
	if t.NumElements() != 1 {
		return 0, false
	}
	switch t.DType {
	case canon.Int64:
		return int64(binary.LittleEndian.Uint64(t.Data)), true
	case canon.Int32:
		return int64(int32(binary.LittleEndian.Uint32(t.Data))), true
	}
	return 0, false
}
