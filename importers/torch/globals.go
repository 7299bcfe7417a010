package torchimport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// storageDTypes maps torch's storage class names (as pickles name them) to
// element types. Complex and quantized storages are known but unsupported.
var storageDTypes = map[string]canon.DType{
	"FloatStorage":    canon.Float32,
	"DoubleStorage":   canon.Float64,
	"HalfStorage":     canon.Float16,
	"BFloat16Storage": canon.BFloat16,
	"LongStorage":     canon.Int64,
	"IntStorage":      canon.Int32,
	"ShortStorage":    canon.Int16,
	"CharStorage":     canon.Int8,
	"ByteStorage":     canon.Uint8,
	"BoolStorage":     canon.Bool,
}

// unsupportedStorages have an element size (for bounds checks) and a reason.
var unsupportedStorages = map[string]int{
	"ComplexFloatStorage":  8,
	"ComplexDoubleStorage": 16,
	"ComplexHalfStorage":   4,
	"QInt8Storage":         1,
	"QUInt8Storage":        1,
	"QInt32Storage":        4,
	"QUInt4x2Storage":      1,
	"QUInt2x4Storage":      1,
}

// storageType is what a pickle's torch.XxxStorage global resolves to.
type storageType struct {
	Name  string
	DType canon.DType // Undefined for unsupported types
	Size  int         // element size in bytes
}

func (s *storageType) describe() string { return "torch." + s.Name }

// tensorRecord is a tensor the pickle rebuilds: a view of a storage.
type tensorRecord struct {
	Storage *storageView
	Offset  int64 // in elements, relative to the storage view
	Size    []int64
	Stride  []int64
}

// findClass is the allow-list for torch.save pickles. Everything else,
// including any class of the user's own code, is refused by name.
func findClass(module, name string) (pickle.Value, error) {
	full := module + "." + name
	switch full {
	case "collections.OrderedDict":
		return pickle.OrderedDict, nil
	case "_codecs.encode":
		return pickle.CodecsEncode, nil
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor":
		return &pickle.Func{Global: pickle.Global{Module: module, Name: name}, Fn: rebuildTensor}, nil
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		return &pickle.Func{Global: pickle.Global{Module: module, Name: name}, Fn: rebuildParameter}, nil
	case "torch._tensor._rebuild_from_type_v2", "torch._tensor._rebuild_from_type":
		return &pickle.Func{Global: pickle.Global{Module: module, Name: name}, Fn: rebuildFromType}, nil
	case "torch.Tensor", "torch.nn.parameter.Parameter", "torch.nn.Parameter", "torch.nn.parameter.Buffer":
		return &pickle.Global{Module: module, Name: name}, nil
	case "torch.Size":
		return &pickle.Func{Global: pickle.Global{Module: module, Name: name}, Fn: func(args []pickle.Value) (pickle.Value, error) {
			if len(args) == 1 {
				if t, ok := args[0].(*pickle.Tuple); ok {
					return t, nil
				}
			}
			return nil, fmt.Errorf("torch.Size: unexpected arguments %s", pickle.Format(&pickle.Tuple{Items: args}))
		}}, nil
	}
	if module == "torch" && strings.HasSuffix(name, "Storage") {
		if dt, ok := storageDTypes[name]; ok {
			return &storageType{Name: name, DType: dt, Size: dt.Size()}, nil
		}
		if size, ok := unsupportedStorages[name]; ok {
			return &storageType{Name: name, Size: size}, nil
		}
	}
	return nil, &pickle.ForbiddenGlobalError{Module: module, Name: name}
}

func rebuildTensor(args []pickle.Value) (pickle.Value, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("_rebuild_tensor: want (storage, offset, size, stride, ...), got %d arguments", len(args))
	}
	st, ok := args[0].(*storageView)
	if !ok {
		return nil, fmt.Errorf("_rebuild_tensor: first argument is a %s, not a storage", pickle.TypeName(args[0]))
	}
	off, ok := args[1].(int64)
	if !ok || off < 0 {
		return nil, fmt.Errorf("_rebuild_tensor: bad storage offset %s", pickle.Format(args[1]))
	}
	size, err := intTuple(args[2], "size")
	if err != nil {
		return nil, err
	}
	stride, err := intTuple(args[3], "stride")
	if err != nil {
		return nil, err
	}
	if len(size) != len(stride) {
		return nil, fmt.Errorf("_rebuild_tensor: size %v and stride %v differ in rank", size, stride)
	}
	return &tensorRecord{Storage: st, Offset: off, Size: size, Stride: stride}, nil
}

func rebuildParameter(args []pickle.Value) (pickle.Value, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("_rebuild_parameter: no arguments")
	}
	if _, ok := args[0].(*tensorRecord); !ok {
		return nil, fmt.Errorf("_rebuild_parameter: data is a %s, not a tensor", pickle.TypeName(args[0]))
	}
	return args[0], nil
}

// rebuildFromType handles _rebuild_from_type_v2(func, new_type, args, state),
// which torch uses for tensor subclasses: the data comes from func(*args).
func rebuildFromType(args []pickle.Value) (pickle.Value, error) {
	if len(args) < 3 {
		return nil, fmt.Errorf("_rebuild_from_type_v2: want (func, type, args, state), got %d arguments", len(args))
	}
	fn, ok := args[0].(pickle.Callable)
	if !ok {
		return nil, fmt.Errorf("_rebuild_from_type_v2: cannot rebuild with %s", pickle.TypeName(args[0]))
	}
	inner, ok := args[2].(*pickle.Tuple)
	if !ok {
		return nil, fmt.Errorf("_rebuild_from_type_v2: arguments are a %s, not a tuple", pickle.TypeName(args[2]))
	}
	return fn.Call(inner.Items)
}

func intTuple(v pickle.Value, what string) ([]int64, error) {
	t, ok := v.(*pickle.Tuple)
	if !ok {
		return nil, fmt.Errorf("tensor %s is a %s, not a tuple", what, pickle.TypeName(v))
	}
	out := make([]int64, len(t.Items))
	for i, it := range t.Items {
		n, ok := it.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("tensor %s %s has a bad entry", what, pickle.Format(v))
		}
		out[i] = n
	}
	return out, nil
}
