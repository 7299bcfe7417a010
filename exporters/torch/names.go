package torchexport

import (
	"strconv"
	"strings"
)

// pythonKeywords cannot be attribute names written as `self.x`.
var pythonKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// moduleAttrs are nn.Module's own attributes: a submodule or tensor under
// one of these names would shadow a method torch relies on.
var moduleAttrs = map[string]bool{
	"training": true, "forward": true, "to": true, "cuda": true, "cpu": true, "eval": true, "train": true,
	"state_dict": true, "load_state_dict": true, "parameters": true, "buffers": true, "children": true,
	"modules": true, "apply": true, "float": true, "double": true, "half": true, "type": true,
	"register_buffer": true, "register_parameter": true, "add_module": true, "named_modules": true,
	"named_parameters": true, "named_buffers": true, "named_children": true, "zero_grad": true,
	"requires_grad_": true, "extra_repr": true, "dump_patches": true, "get_submodule": true,
	"get_parameter": true, "get_buffer": true, "share_memory": true, "bfloat16": true,
	// The rest of nn.Module's public attributes (torch 1.13 and 2.x): a
	// weight named register_forward_hook would replace the method.
	"T_destination": true, "get_extra_state": true, "set_extra_state": true, "ipu": true, "xpu": true,
	"mtia": true, "register_backward_hook": true, "register_forward_hook": true,
	"register_forward_pre_hook": true, "register_full_backward_hook": true,
	"register_full_backward_pre_hook": true, "register_load_state_dict_post_hook": true,
	"register_load_state_dict_pre_hook": true, "register_state_dict_pre_hook": true,
	"register_state_dict_post_hook": true, "register_module": true, "to_empty": true,
	"compile": true, "call_super_init": true, "set_submodule": true,
}

// pythonBuiltins are the names of Python's builtins (3.11): a local
// variable of the generated forward under one of these names would shadow
// a function the code calls (getattr, float, int, range, ...).
var pythonBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable
		chr classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit
		filter float format frozenset getattr globals hasattr hash help hex id input int isinstance
		issubclass iter len license list locals map max memoryview min next object oct open ord pow print
		property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple
		type vars zip Ellipsis NotImplemented match case`) {
		pythonBuiltins[n] = true
	}
}

// isIdentifier reports whether s is an ASCII Python identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// isIndex reports whether s is a decimal index such as nn.Sequential uses.
func isIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 31)
	return err == nil
}

// validComponent is a name that can be an attribute of a module: an
// identifier, or an index as nn.Sequential names its children.
func validComponent(s string) bool {
	if isIndex(s) {
		return true
	}
	return isIdentifier(s) && !pythonKeywords[s] && !moduleAttrs[s] && !strings.HasPrefix(s, "_")
}

// ValidStateKey reports whether name is usable as-is as a state-dict key of
// the generated module: dot-separated identifiers or indices (e.g.
// "features.0.weight", "conv1.bias", or "0.weight" from an nn.Sequential).
func ValidStateKey(name string) bool {
	for _, p := range strings.Split(name, ".") {
		if !validComponent(p) {
			return false
		}
	}
	return true
}

// sanitize turns an arbitrary name into one module attribute: runs of
// characters outside [A-Za-z0-9_] become "_", and names that would start
// with a digit or clash with Python or nn.Module get a prefix.
func sanitize(name string) string {
	var b strings.Builder
	under := false
	for _, c := range name {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		return ""
	}
	if s[0] >= '0' && s[0] <= '9' || pythonKeywords[s] || moduleAttrs[s] {
		s = "m_" + s
	}
	return s
}

// nameSet hands out unique names.
type nameSet map[string]bool

// claim returns base, or base_1, base_2, ... if taken, and marks it used.
func (s nameSet) claim(base string) string {
	name := base
	if s[name] {
		name = firstFree(base, func(n string) bool { return !s[n] })
	}
	s[name] = true
	return name
}

// firstFree returns base_i for the smallest i >= 1 that free accepts,
// assuming (as claiming in order makes true) that the taken suffixes form
// a run 1..k: it gallops then bisects, so n claims of one base cost
// O(n log n) lookups instead of O(n²). Should the run have gaps, the
// name returned is still free, only not the smallest.
func firstFree(base string, free func(string) bool) string {
	name := func(i int) string { return base + "_" + strconv.Itoa(i) }
	if free(name(1)) {
		return name(1)
	}
	lo, hi := 1, 2 // name(lo) taken
	for !free(name(hi)) {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 { // name(lo) taken, name(hi) free
		mid := lo + (hi-lo)/2
		if free(name(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return name(hi)
}
