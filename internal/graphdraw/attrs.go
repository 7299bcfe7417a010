package graphdraw

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelbridge/modelbridge/canon"
)

// Attributes describes a node's typed attributes in short "name value"
// strings, read from the op struct's fields so that new op kinds are drawn
// without changes here. Values that say nothing (no dilation, no padding,
// one group, an open-ended range) are left out. Convolutions also show their
// kernel size, which lives in the weight's shape.
func Attributes(n *canon.Node, g *canon.Graph) []string {
	var out []string
	if k := kernelOf(n, g); k != "" {
		out = append(out, "kernel "+k)
	}
	v := reflect.ValueOf(n.Op)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return out
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return out
	}
	t := v.Type()
	var padsBegin, padsEnd []int64
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		switch f.Name {
		case "Fn": // the kind already names the function (Add, Relu)
			continue
		case "PadsBegin":
			padsBegin, _ = fv.Interface().([]int64)
			continue
		case "PadsEnd":
			padsEnd, _ = fv.Interface().([]int64)
			continue
		case "Captures":
			if names, _ := fv.Interface().([]string); len(names) > 0 {
				out = append(out, "captures "+strings.Join(names, ", "))
			}
			continue
		}
		if s, ok := formatField(f.Name, fv); ok && !isDefault(n.Op.Kind(), f.Name, s) {
			out = append(out, snake(f.Name)+" "+s)
		}
	}
	if !allEqual(padsBegin, 0) || !allEqual(padsEnd, 0) {
		out = append(out, "pads "+joinInts(append(append([]int64{}, padsBegin...), padsEnd...)))
	}
	return out
}

// kernelOf is the spatial size of a convolution's weight ("3×3"), found
// by the weight's role rather than by op kind.
func kernelOf(n *canon.Node, g *canon.Graph) string {
	slot := -1
	for i, spec := range n.Op.Signature().Inputs {
		if spec.Role == canon.RoleConvWeight || spec.Role == canon.RoleDeconvWeight {
			slot = i
			break
		}
	}
	if slot < 0 || slot >= len(n.Inputs) || n.Inputs[slot] == "" {
		return ""
	}
	w, ok := g.Values.Lookup(n.Inputs[slot])
	if !ok {
		if t := g.Initializer(n.Inputs[slot]); t != nil {
			return joinWith(t.Shape[min(2, len(t.Shape)):], "×")
		}
		return ""
	}
	shape, ok := w.StaticShape()
	if !ok || len(shape) < 3 {
		return ""
	}
	return joinWith(shape[2:], "×")
}

// formatField renders one attribute, or reports false when it is at a value
// that means "nothing special".
func formatField(name string, v reflect.Value) (string, bool) {
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Pointer {
		return s.String(), true
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.Len() == 0 {
			return "", false
		}
		if ints, ok := v.Interface().([]int64); ok {
			if (name == "Dilations" || name == "Strides") && allEqual(ints, 1) {
				return "", false
			}
			if name == "OutputPadding" && allEqual(ints, 0) {
				return "", false
			}
			if name == "Kernel" {
				return joinWith(ints, "×"), true
			}
			return joinInts(ints), true
		}
		if fs, ok := v.Interface().([]float32); ok {
			parts := make([]string, len(fs))
			for i, f := range fs {
				parts[i] = strconv.FormatFloat(float64(f), 'g', -1, 32)
			}
			return strings.Join(parts, ","), true
		}
		return fmt.Sprintf("%d values", v.Len()), true
	case reflect.Int64, reflect.Int, reflect.Int32:
		x := v.Int()
		if (name == "Group" && x == 1) || x == math.MaxInt64 {
			return "", false
		}
		return fmt.Sprint(x), true
	case reflect.Bool:
		if !v.Bool() {
			return "", false
		}
		return "yes", true
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) {
			return "", false
		}
		return strconv.FormatFloat(f, 'g', -1, v.Type().Bits()), true
	case reflect.Pointer:
		if v.IsNil() {
			return "", false
		}
		if t, ok := v.Interface().(*canon.Tensor); ok {
			return fmt.Sprintf("%s%v", t.DType, t.Shape), true
		}
		if sg, ok := v.Interface().(*canon.Graph); ok {
			return subgraphLine(sg), true
		}
	case reflect.String:
		if v.String() == "" {
			return "", false
		}
		return v.String(), true
	}
	return "", false
}

func allEqual(xs []int64, want int64) bool {
	for _, x := range xs {
		if x != want {
			return false
		}
	}
	return true
}

func joinInts(xs []int64) string { return joinWith(xs, ",") }

func joinWith(xs []int64, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}

// snake turns a Go field name into the lower-case words users read in
// framework docs: CountIncludePad -> count_include_pad.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// defaults are attribute values that are the usual case for an op kind and
// only clutter the picture.
var defaults = map[string]map[string]string{
	"Linear": {"Alpha": "1", "Beta": "1"},
}

func isDefault(kind, field, value string) bool {
	v, ok := defaults[kind][field]
	return ok && v == value
}
