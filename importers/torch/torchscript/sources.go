package torchscript

import (
	"fmt"
	"strings"
)

// sources parses code/ files on demand: a class or function is looked up
// by its qualified name, whose module part names the file
// (__torch__.a.b.C lives in code/__torch__/a/b.py).
type sources struct {
	a      *archive
	parsed map[string]*sourceFile // by module name
	// codeBytes is the size of the code/ files parsed so far, which bounds
	// how many statements the evaluator may run.
	codeBytes int64
}

func newSources(a *archive) *sources { return &sources{a: a, parsed: map[string]*sourceFile{}} }

// file returns the parsed source of a module, or nil when the archive has
// no such file.
func (s *sources) file(module string) (*sourceFile, error) {
	if sf, ok := s.parsed[module]; ok {
		return sf, nil
	}
	path := "code/" + strings.ReplaceAll(module, ".", "/") + ".py"
	if !s.a.has(path) {
		s.parsed[module] = nil
		return nil, nil
	}
	// The source limit applies to the declared size, before inflating.
	raw, err := s.a.readMax(path, maxSourceBytes)
	if err != nil {
		return nil, err
	}
	s.codeBytes += int64(len(raw))
	sf, err := parseSource(path, string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot parse TorchScript source: %w", s.a.path, err)
	}
	s.parsed[module] = sf
	return sf, nil
}

// split cuts a qualified name at its last dot.
func split(qual string) (module, name string) {
	i := strings.LastIndexByte(qual, '.')
	if i < 0 {
		return "", qual
	}
	return qual[:i], qual[i+1:]
}

func (s *sources) class(qual string) (*classDef, error) {
	module, name := split(qual)
	sf, err := s.file(module)
	if err != nil {
		return nil, err
	}
	if sf == nil || sf.classes[name] == nil {
		return nil, fmt.Errorf("class %s is not defined in the archive's code/ (expected in code/%s.py)", qual, strings.ReplaceAll(module, ".", "/"))
	}
	return sf.classes[name], nil
}

func (s *sources) function(qual string) (*funcDef, error) {
	module, name := split(qual)
	sf, err := s.file(module)
	if err != nil {
		return nil, err
	}
	if sf == nil || sf.funcs[name] == nil {
		if sf != nil && sf.classes[name] != nil {
			return nil, fmt.Errorf("creating objects of class %s is not supported", qual)
		}
		if c, ok := s.classOf(qual); ok {
			return nil, fmt.Errorf("calling %s on class %s is not supported", name, c)
		}
		return nil, fmt.Errorf("function %s is not defined in the archive's code/", qual)
	}
	return sf.funcs[name], nil
}

// classOf reports whether qual is Class.method of a defined class.
func (s *sources) classOf(qual string) (string, bool) {
	cls, _ := split(qual)
	if _, err := s.class(cls); err == nil {
		return cls, true
	}
	return "", false
}
