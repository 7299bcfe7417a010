package canon

import "fmt"

// DType is the element type of a tensor or value.
type DType uint8

const (
	Undefined DType = iota
	Float32
	Float16
	BFloat16
	Float64
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Bool
	// String elements are byte strings (ONNX's STRING: any bytes, UTF-8 by
	// convention); a String tensor keeps them in Tensor.Strings.
	String
)

var dtypeInfo = [...]struct {
	name string
	size int
}{
	Undefined: {"undefined", 0},
	Float32:   {"f32", 4},
	Float16:   {"f16", 2},
	BFloat16:  {"bf16", 2},
	Float64:   {"f64", 8},
	Int8:      {"i8", 1},
	Int16:     {"i16", 2},
	Int32:     {"i32", 4},
	Int64:     {"i64", 8},
	Uint8:     {"u8", 1},
	Uint16:    {"u16", 2},
	Uint32:    {"u32", 4},
	Uint64:    {"u64", 8},
	Bool:      {"bool", 1},
	String:    {"string", 0},
}

// String returns the short name used in reports ("f32", "i64", ...).
func (d DType) String() string {
	if int(d) < len(dtypeInfo) {
		return dtypeInfo[d].name
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size is the number of bytes one element occupies (0 for String, whose
// elements vary in length).
func (d DType) Size() int {
	if int(d) < len(dtypeInfo) {
		return dtypeInfo[d].size
	}
	return 0
}

// Valid reports whether d is one of the element types above (not
// Undefined).
func (d DType) Valid() bool { return d != Undefined && int(d) < len(dtypeInfo) }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	return d == Float32 || d == Float16 || d == BFloat16 || d == Float64
}

// IsInt reports whether d is a signed or unsigned integer type (not bool).
func (d DType) IsInt() bool {
	switch d {
	case Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}

// ParseDType accepts the short names that String returns.
func ParseDType(s string) (DType, error) {
	for i, info := range dtypeInfo {
		if info.name == s && i != 0 {
			return DType(i), nil
		}
	}
	return Undefined, fmt.Errorf("unknown dtype %q (want one of f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool, string)", s)
}
