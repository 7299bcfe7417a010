package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
)

// tensor is the interpreter's working value: dense row-major data held in
// one of three storages, chosen by dt:
//   - f (float32) for float32, float16 and bfloat16: f16 and bf16 values
//     are computed in float32 and rounded to their dtype at every op output
//     (see fixOutputs), as ONNX Runtime stores them;
//   - d (float64) for float64, computed in float64;
//   - i (int64) for every integer dtype and bool: the value itself, with
//     uint64 held by its bit pattern, so arithmetic wraps at the dtype's
//     width (wrapInts) and uint64 is compared and divided unsigned;
//   - s for strings (see strings.go), which only the kernels of the kinds
//     canon.TakesStrings names read.
type tensor struct {
	dt    canon.DType
	shape []int
	f     []float32
	i     []int64
	d     []float64
	s     []string
	// sBytes is what a kernel charged the memory budget for s; the pool
	// gives it back when the tensor dies.
	sBytes int64
}

// isFloat reports float32 storage (float32, float16 or bfloat16 data).
func (t *tensor) isFloat() bool {
	return t.dt == canon.Float32 || t.dt == canon.Float16 || t.dt == canon.BFloat16
}

// isF64 reports float64 storage. A float64 value that a data-moving kernel
// carries by its bits in i (see f64Bits) is not: it has i set.
func (t *tensor) isF64() bool { return t.dt == canon.Float64 && t.i == nil }

// size is the number of elements.
func (t *tensor) size() int {
	switch {
	case t.isFloat():
		return len(t.f)
	case t.isF64():
		return len(t.d)
	case t.dt == canon.String && t.i == nil: // not positions (strings_moved.go)
		return len(t.s)
	}
	return len(t.i)
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// toShape converts and checks a canon shape.
func toShape(s []int64) ([]int, error) {
	if canon.NumElements(s) < 0 || canon.NumElements(s) > math.MaxInt32*int64(64) {
		return nil, fmt.Errorf("shape %v is negative or too large", s)
	}
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d)
	}
	return out, nil
}

// fromCanon converts a canon tensor. When view is set, little-endian f32
// and f64 data is used in place (never written: constants only) when it is
// aligned or the CPU reads misaligned floats directly; otherwise it is
// copied.
func fromCanon(ct *canon.Tensor, view bool) (*tensor, error) {
	if err := ct.CheckData(); err != nil {
		return nil, err
	}
	shape, err := toShape(ct.Shape)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %v", ct.Name, err)
	}
	n := numel(shape)
	b := ct.Data
	t := &tensor{dt: ct.DType, shape: shape} // every dtype is carried as itself
	switch ct.DType {
	case canon.Float32:
		if view && canView(b, 4) {
			t.f = unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
			return t, nil
		}
		t.f = make([]float32, n)
		if littleEndian {
			copy(float32Bytes(t.f), b) // one memmove instead of a decode per element
			return t, nil
		}
		for i := range t.f {
			t.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case canon.Float16:
		t.f = make([]float32, n)
		for i := range t.f {
			t.f[i] = canon.HalfToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case canon.BFloat16:
		t.f = make([]float32, n)
		for i := range t.f {
			t.f[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		}
	case canon.Float64:
		if view && canView(b, 8) {
			t.d = unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
			return t, nil
		}
		t.d = make([]float64, n)
		for i := range t.d {
			t.d[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case canon.Int8, canon.Int16, canon.Int32, canon.Int64, canon.Uint8, canon.Uint16, canon.Uint32, canon.Uint64, canon.Bool:
		v, err := ct.Int64s()
		if err != nil {
			return nil, err
		}
		if ct.DType == canon.Bool {
			for i := range v {
				if v[i] != 0 {
					v[i] = 1
				}
			}
		}
		t.i = v
	case canon.String:
		t.s = ct.Strings // never written: kernels build new slices
	default:
		return nil, fmt.Errorf("tensor %q: dtype %s is not supported", ct.Name, ct.DType)
	}
	return t, nil
}

// float32Bytes is f's memory seen as bytes, which on a little-endian host
// is its float32 encoding in a canon tensor.
func float32Bytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}

// canView reports that the little-endian elements of size bytes in b can be
// read in place.
func canView(b []byte, size uintptr) bool {
	if !littleEndian || len(b) == 0 {
		return false
	}
	return unalignedFloatLoads || uintptr(unsafe.Pointer(&b[0]))%size == 0
}

// toCanon converts t to a canon tensor of dtype dt (t's own dtype when dt is
// Undefined).
func toCanon(t *tensor, name string, dt canon.DType) (*canon.Tensor, error) {
	return toCanonInto(t, name, dt, nil)
}

// toCanonInto is toCanon writing into reuse (a tensor this package made
// and handed out before) when it has dtype dt and room for exactly t's
// elements: its Data and, when the rank is the same, its Shape are
// overwritten. reuse nil, or another size, makes a new tensor.
func toCanonInto(t *tensor, name string, dt canon.DType, reuse *canon.Tensor) (*canon.Tensor, error) {
	if dt == canon.Undefined {
		dt = t.dt
	}
	n := t.size()
	if reuse != nil && (reuse.DType != dt || dt == canon.String || t.dt == canon.String || len(reuse.Data) != n*dt.Size()) {
		reuse = nil
	}
	var shape []int64
	if reuse != nil && len(reuse.Shape) == len(t.shape) {
		shape = reuse.Shape
	} else {
		shape = make([]int64, len(t.shape))
	}
	for i, d := range t.shape {
		shape[i] = int64(d)
	}
	if dt == canon.String || t.dt == canon.String {
		return stringsToCanon(t, &canon.Tensor{Name: name, DType: dt, Shape: shape})
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("output %q: dtype %s is not supported", name, dt)
	}
	out := reuse
	if out == nil {
		out = &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: make([]byte, n*dt.Size())}
	} else {
		out.Name, out.Shape, out.Layout, out.Strings = name, shape, "", nil
		if !(t.isFloat() && dt == canon.Float32 && littleEndian) {
			clear(out.Data) // the conversions below write into a zeroed buffer
		}
	}
	b := out.Data
	if t.isFloat() && dt == canon.Float32 && littleEndian {
		copy(b, float32Bytes(t.f))
		return out, nil
	}
	if t.isFloat() {
		for i, x := range t.f {
			putFloat(b, i, dt, x)
		}
		return out, nil
	}
	if t.isF64() {
		for i, x := range t.d {
			putFloat64(b, i, dt, x)
		}
		return out, nil
	}
	for i, x := range t.i {
		if dt == canon.Float64 {
			putFloat64(b, i, dt, intValue(t.dt, x))
			continue
		}
		if dt.IsFloat() {
			putFloat(b, i, dt, intToFloat32(t.dt, x))
			continue
		}
		putInt(b, i, dt, x)
	}
	return out, nil
}

// putFloat64 stores float64 value x as element i of dtype dt: exact for
// float64, rounded once (to nearest even) for the narrower floats, and
// truncated like a C cast for integers.
func putFloat64(b []byte, i int, dt canon.DType, x float64) {
	switch dt {
	case canon.Float64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	case canon.Float32, canon.Float16, canon.BFloat16:
		putFloat(b, i, dt, float32(x))
	case canon.Bool:
		if x != 0 {
			b[i] = 1
		}
	default:
		putInt(b, i, dt, castFloatToInt(dt, x))
	}
}

func putFloat(b []byte, i int, dt canon.DType, x float32) {
	switch dt {
	case canon.Float32:
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	case canon.Float16:
		binary.LittleEndian.PutUint16(b[2*i:], canon.Float32ToHalf(x))
	case canon.BFloat16:
		binary.LittleEndian.PutUint16(b[2*i:], canon.Float32ToBFloat16(x))
	case canon.Float64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(x)))
	case canon.Bool:
		if x != 0 {
			b[i] = 1
		}
	default:
		// Float results declared as integers (e.g. MaxPool on u8 data
		// that was pooled in float32): truncate like a C cast.
		var v int64
		if !math.IsNaN(float64(x)) {
			v = int64(x)
		}
		putInt(b, i, dt, v)
	}
}

func putInt(b []byte, i int, dt canon.DType, x int64) {
	switch dt {
	case canon.Int8, canon.Uint8:
		b[i] = byte(x)
	case canon.Bool:
		if x != 0 {
			b[i] = 1
		}
	case canon.Int16, canon.Uint16:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	case canon.Int32, canon.Uint32:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	case canon.Int64, canon.Uint64:
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
}

// wrapInts reduces int64 results to the range of dtype dt, as arithmetic
// in that dtype would have (two's complement wrap-around).
func wrapInts(dt canon.DType, v []int64) {
	switch dt {
	case canon.Int8:
		wrapAs[int8](v)
	case canon.Uint8:
		wrapAs[uint8](v)
	case canon.Int16:
		wrapAs[int16](v)
	case canon.Uint16:
		wrapAs[uint16](v)
	case canon.Int32:
		wrapAs[int32](v)
	case canon.Uint32:
		wrapAs[uint32](v)
	case canon.Bool:
		for i, x := range v {
			if x != 0 {
				v[i] = 1
			}
		}
	}
}

// wrapAs truncates every value to integer type T and widens it back.
func wrapAs[T int8 | uint8 | int16 | uint16 | int32 | uint32](v []int64) {
	for i, x := range v {
		v[i] = int64(T(x))
	}
}
