package interp

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
)

// How values of every dtype meet the kernels.
//
// float16 and bfloat16 are computed in float32 (storage f). bfloat16 is
// rounded to its dtype (to nearest even) at every op output, in fixOutputs,
// as PyTorch does (ONNX Runtime's CPU provider has no bfloat16 arithmetic).
// float16 follows ONNX Runtime's CPU provider: it has no float16 kernels
// for arithmetic, so it runs such ops in float32 between Casts it inserts
// and then removes the inserted Cast pairs float32->float16->float32
// between them (InsertCastTransformer, RemoveDuplicateCastTransformer). A
// chain of float16 ops is thus computed in float32 and rounded once, at a
// graph output or at an explicit Cast to float16. (ONNX Runtime also drops
// a model's own Cast to float16 when only arithmetic or Casts read it; the
// interpreter keeps it, as the ONNX spec and PyTorch do.)
//
// float64 has its own storage (d). A kernel either computes in float64
// itself (f64Native), or only moves elements and then carries float64 data
// by its bits in int64 storage (f64Bits: exact, like any integer), or has
// float32 loops only and refuses float64 data (f64Refused). Each kernel's
// mode is declared in its entry of the kernel table (computesF64,
// movesF64, float32Only).

// f64Mode is how a kernel meets float64 inputs.
type f64Mode uint8

const (
	// f64Refused kernels compute in float32 only: float64 data is an
	// error rather than a silent loss of precision.
	f64Refused f64Mode = iota
	// f64Native kernels read and write float64 storage themselves.
	f64Native
	// f64Bits kernels only copy elements: float64 inputs are handed over
	// as int64 bit patterns (dtype Float64) and outputs turned back.
	f64Bits
)

// detail is what `modelbridge ops` says of a kernel's float64 support.
func (m f64Mode) detail() string {
	if m == f64Refused {
		return "float32, float16 and bfloat16 (computed in float32); float64 data is refused: there is no float64 kernel"
	}
	return ""
}

// declaredDTypes is the dtype the graph declares for each output of n
// (Undefined where it does not say).
func declaredDTypes(g *canon.Graph, n *canon.Node) []canon.DType {
	out := make([]canon.DType, len(n.Outputs))
	for k, name := range n.Outputs {
		if v, ok := g.Values.Lookup(name); ok && name != "" {
			out[k] = v.DType
		}
	}
	return out
}

// adaptInputs prepares the step's float64 inputs for a kernel that does
// not read float64 storage (bit views, f64Bits), and refuses float64 data
// for a kernel without float64 loops.
func (x *exec) adaptInputs() error {
	s := x.s
	x.inFloat = canon.Float32
	for _, id := range s.in {
		if id >= 0 && x.vals[id] != nil && x.vals[id].dt.IsFloat() {
			x.inFloat = x.vals[id].dt
			break
		}
	}
	if s.f64 == f64Native {
		return nil
	}
	if s.f64 == f64Refused {
		for k, id := range s.in {
			if id >= 0 && x.vals[id] != nil && x.vals[id].isF64() {
				return fmt.Errorf("input %q is float64, and the interpreter runs %s in float32 only (its result would not have float64's precision); convert the model to float32 to check it", s.node.Inputs[k], s.node.Op.Kind())
			}
		}
		return nil
	}
	for k, id := range s.in {
		if id < 0 || x.vals[id] == nil || !x.vals[id].isF64() {
			continue
		}
		if x.adapted == nil {
			x.adapted = make([]*tensor, len(s.in))
			for j, id2 := range s.in {
				if id2 >= 0 {
					x.adapted[j] = x.vals[id2]
				}
			}
		}
		t := x.vals[id]
		x.adapted[k] = &tensor{dt: canon.Float64, shape: t.shape, i: f64Bits64(t.d)}
	}
	return nil
}

// takeAdapted is take for a step whose inputs were adapted: the kernel gets
// the adapted tensor, and the original leaves its slot.
func (x *exec) takeAdapted(k int) *tensor {
	id := x.s.in[k]
	orig, t := x.vals[id], x.adapted[k]
	if t != nil && t.dt == canon.String && t.i != nil {
		return nil // string positions are not the kernel's to keep
	}
	x.vals[id] = nil
	if orig != t && t.dt == canon.Float32 {
		x.p.pool.put(orig) // a float32 copy: the float64 buffer is dead
	}
	return t
}

// f64Bits64 views float64 data as int64 bit patterns (same memory).
func f64Bits64(d []float64) []int64 {
	if len(d) == 0 {
		return []int64{}
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&d[0])), len(d))
}

// bitsF64 views int64 bit patterns as float64 data (same memory).
func bitsF64(i []int64) []float64 {
	if len(i) == 0 {
		return []float64{}
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&i[0])), len(i))
}

// fixOutputs gives every output of the step its dtype's storage and
// precision: float64 carried as bits goes back to float64 storage, float32
// results of a float64 op are widened (the fallback), and float16/bfloat16
// results are rounded to their dtype.
func (x *exec) fixOutputs() {
	s := x.s
	for k, id := range s.out {
		if id < 0 || x.vals[id] == nil {
			continue
		}
		t := x.vals[id]
		if t.dt == canon.Float64 && t.i != nil {
			t.d, t.i = bitsF64(t.i), nil
			continue
		}
		if !t.isFloat() {
			continue
		}
		want := s.outDT[k]
		if !want.IsFloat() {
			want = x.guessFloat(t)
		}
		switch want {
		case canon.Float64:
			d := x.newD(t.shape)
			for i, v := range t.f {
				d.d[i] = float64(v)
			}
			x.p.pool.put(t)
			x.vals[id] = d
		case canon.Float16:
			t.dt = want // rounded at graph outputs and Casts only
		case canon.BFloat16:
			roundAll(want, t.f)
			t.dt = want
		case canon.Float32:
			t.dt = canon.Float32
		}
	}
}

// guessFloat is the dtype of a float32-stored output when the graph does
// not declare it: what the kernel set, else the dtype of the node's first
// floating input (the rule of every op but the casts).
func (x *exec) guessFloat(t *tensor) canon.DType {
	if t.dt != canon.Float32 {
		return t.dt
	}
	if _, ok := x.s.node.Op.(*canon.Cast); ok {
		return t.dt
	}
	return x.inFloat
}

// roundAll rounds float32 values to float dtype dt in place.
func roundAll(dt canon.DType, v []float32) {
	for i, f := range v {
		v[i] = roundFloat(dt, f)
	}
}

// castFloatToInt converts float v to integer dtype dt as ONNX Runtime's
// Cast does (a C++ static_cast): truncation toward zero; NaN gives 0 and
// values beyond the target's range saturate here (C leaves them undefined).
// uint64 values at and above 2^63 keep their bit pattern.
func castFloatToInt(dt canon.DType, v float64) int64 {
	switch {
	case v != v:
		return 0
	case dt == canon.Uint64 && v >= 1<<63:
		if v >= 1<<64 {
			return -1
		}
		return int64(uint64(v))
	case dt == canon.Uint64 && v < 0 && v > -1:
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}
