package torchscript

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/formats"
)

// A forward parameter may be a List[Tensor] or a Tuple[Tensor, ...] (a
// model traced with a list or tuple of tensors as one argument). Each
// element becomes a graph input named after the parameter and its position
// (xs_0, xs_1, ...). A tuple's annotation gives the count; a list's count
// is read from the unpacking that traced code starts with (`_0, _1, = xs`),
// or from the --input-shape names given for it.

// declareTensorSeq declares the inputs of sequence parameter p and returns
// the list or tuple value forward receives.
func declareTensorSeq(fwd *funcDef, p param, opts formats.ReadOptions, declare func(string) (*tensorVal, error)) (value, error) {
	kind, n, err := tensorSeqLength(fwd, p, opts)
	if err != nil {
		return nil, err
	}
	items := make([]value, n)
	for i := range items {
		t, err := declare(p.name + "_" + strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		items[i] = t
	}
	if kind == "Tuple" {
		return &tupleVal{items: items}, nil
	}
	return &listVal{items: items}, nil
}

// tensorSeqLength returns "List" or "Tuple" and the number of tensors of
// parameter p, or the reason it is not a sequence of tensors this importer
// can make inputs of.
func tensorSeqLength(fwd *funcDef, p param, opts formats.ReadOptions) (string, int, error) {
	unsupported := fmt.Errorf("%s:%d: forward parameter %s has type %s; only Tensor, List[Tensor] and Tuple[Tensor, ...] inputs are supported", fwd.file, fwd.line, p.name, annotationText(p.annotation))
	sub, ok := p.annotation.(*subscriptExpr)
	if !ok {
		return "", 0, unsupported
	}
	container, ok := sub.x.(*nameExpr)
	if !ok {
		return "", 0, unsupported
	}
	switch container.name {
	case "Tuple":
		elems := []expr{sub.index}
		if tup, ok := sub.index.(*tupleExpr); ok {
			elems = tup.items
		}
		for _, e := range elems {
			if !isTensorAnnotation(e) || e == nil {
				return "", 0, unsupported
			}
		}
		return "Tuple", len(elems), nil
	case "List":
		if !isTensorAnnotation(sub.index) || sub.index == nil {
			return "", 0, unsupported
		}
		if n := unpackedLength(fwd, p.name); n > 0 {
			return "List", n, nil
		}
		n := 0
		for {
			if _, ok := opts.InputShapes[p.name+"_"+strconv.Itoa(n)]; !ok {
				break
			}
			n++
		}
		if n == 0 {
			return "", 0, fmt.Errorf("%s:%d: forward parameter %s is a List[Tensor] whose length the code does not show; give each tensor's shape with --input-shape %s_0=... --input-shape %s_1=... (one per tensor of the list)", fwd.file, fwd.line, p.name, p.name, p.name)
		}
		return "List", n, nil
	}
	return "", 0, unsupported
}

// unpackedLength is the number of targets of the first `a, b, = name` in
// fn's body, or 0.
func unpackedLength(fn *funcDef, name string) int {
	for _, s := range fn.body {
		a, ok := s.(*assignStmt)
		if !ok {
			continue
		}
		if v, ok := a.value.(*nameExpr); ok && v.name == name && (a.unpack || len(a.targets) > 1) {
			return len(a.targets)
		}
	}
	return 0
}
