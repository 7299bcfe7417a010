package tensorfile

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// longDTypeNames maps the NumPy/PyTorch spellings a user may type to the
// short names modelbridge uses, for the hint in an error.
var longDTypeNames = map[string]string{
	"float32": "f32", "float": "f32", "float16": "f16", "half": "f16", "bfloat16": "bf16",
	"float64": "f64", "double": "f64", "int8": "i8", "int16": "i16", "int32": "i32", "int": "i32",
	"int64": "i64", "long": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}

// parseDType reads a short dtype name (f32, i64, bool, ...), suggesting
// the short name for a NumPy/PyTorch spelling.
func parseDType(s string) (canon.DType, error) {
	d, err := canon.ParseDType(s)
	if err == nil {
		return d, nil
	}
	if short, ok := longDTypeNames[strings.ToLower(s)]; ok {
		return canon.Undefined, fmt.Errorf("unknown dtype %q: write %s", s, short)
	}
	return canon.Undefined, err
}

// cutDTypePrefix splits "i64:1,15" into i64 and "1,15". typed is false
// when dims has no "TYPE:" prefix.
func cutDTypePrefix(dims string) (d canon.DType, rest string, typed bool, err error) {
	head, tail, ok := strings.Cut(dims, ":")
	if !ok {
		return canon.Undefined, dims, false, nil
	}
	head = strings.TrimSpace(head)
	if head == "" || (head[0] >= '0' && head[0] <= '9') || head[0] == '[' || head[0] == '(' {
		// "1:3:64:64" is a spelling of sizes, which the shape parser
		// reports with its own hint.
		return canon.Undefined, dims, false, nil
	}
	d, err = parseDType(head)
	if err != nil {
		return canon.Undefined, dims, false, err
	}
	return d, tail, true, nil
}

// ParseInputDTypes collects the input element types given on the command
// line: the "TYPE:" prefix of --input-shape values (x=i64:1,15) and
// --input-type values (x=i64), keyed like shapes (a name or #N). A type
// given twice differently is refused.
func ParseInputDTypes(shapeSpecs, typeSpecs []string) (map[string]canon.DType, error) {
	out := map[string]canon.DType{}
	set := func(name string, d canon.DType, spec string) error {
		if prev, ok := out[name]; ok && prev != d {
			return fmt.Errorf("%s: input %s is given as both %s and %s", spec, name, prev, d)
		}
		out[name] = d
		return nil
	}
	for _, s := range shapeSpecs {
		name, dims, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			continue // ParseInputShapes reports it
		}
		d, _, typed, err := cutDTypePrefix(dims)
		if err != nil {
			return nil, fmt.Errorf("--input-shape %q: %v", s, err)
		}
		if typed {
			if err := set(name, d, "--input-shape "+s); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range typeSpecs {
		name, typ, ok := strings.Cut(s, "=")
		if !ok || name == "" || typ == "" {
			return nil, fmt.Errorf("--input-type %q: want NAME=TYPE (or #N=TYPE), e.g. ids=i64 or mask=bool", s)
		}
		d, err := parseDType(strings.TrimSpace(typ))
		if err != nil {
			return nil, fmt.Errorf("--input-type %q: %v", s, err)
		}
		if err := set(name, d, "--input-type "+s); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
