package torchscript

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// atenRegistryTSV lists the aten operators PyTorch 1.13's torch.onnx has a
// symbolic function for at opset 17, one per line: the name, the
// operators the op's test modules hold (comma-separated, as torch.NAME in
// serialized code; modules are traced, or scripted for the statements and
// builtins tracing never records), and, when no standalone module holds
// it, why. e2e's TestAtenRegistry makes the modules with
// testdata/make_aten_registry_cases.py, checks this file against them and
// rewrites it with -update-aten-registry.
//
//go:embed aten_registry.tsv
var atenRegistryTSV string

// AtenOp is one operator of torch.onnx's registry and what this importer
// has for it.
type AtenOp struct {
	Name string `json:"op"`
	// Traced are the operators a traced call of the op is recorded as
	// (with the ones around it, e.g. size for a dynamic shape).
	Traced []string `json:"traced,omitempty"`
	// Missing are those of Traced this importer has no handler for.
	Missing []string `json:"missing,omitempty"`
	// NotTraced says why no module records the op (ops PyTorch 1.13 no
	// longer has, helpers of the ONNX exporter, ...).
	NotTraced string `json:"not_traced,omitempty"`
	// Refused says why the handler refuses the op whatever its arguments.
	Refused string `json:"refused,omitempty"`
}

// refusedOps are operators whose handler refuses every call, with the
// reason (filled by the files that add such handlers).
var refusedOps = map[string]string{}

// Handled tells whether every operator the op is traced as has a handler.
// A handler may still refuse some arguments (each refusal names them).
func (o AtenOp) Handled() bool { return o.NotTraced == "" && len(o.Missing) == 0 && o.Refused == "" }

// AtenRegistry returns torch.onnx's operators (PyTorch 1.13, opset 17) in
// name order, each with the handlers it needs that this importer lacks.
func AtenRegistry() ([]AtenOp, error) {
	var ops []AtenOp
	for i, line := range strings.Split(strings.TrimRight(atenRegistryTSV, "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || (f[1] == "") == (f[2] == "") {
			return nil, fmt.Errorf("aten_registry.tsv line %d: want op, traced operators or a reason why none (tab-separated)", i+1)
		}
		op := AtenOp{Name: f[0], NotTraced: f[2]}
		if f[1] != "" {
			op.Traced = strings.Split(f[1], ",")
		}
		for _, k := range op.Traced {
			if _, ok := opTable["torch."+k]; !ok && !tracedBuiltin(k) {
				op.Missing = append(op.Missing, k)
			}
		}
		if why, ok := refusedOps["torch."+op.Name]; ok {
			op.Refused = why
		}
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Name < ops[j].Name })
	return ops, nil
}

// tracedBuiltin tells whether a recorded operator is serialized as a
// Python builtin or as syntax rather than torch.NAME: aten::Int is
// int(...), aten::Float float(...), aten::ScalarImplicit an annotate(...),
// and a scripted aten::__getitem__ a subscript (l[i]).
func tracedBuiltin(kind string) bool {
	return kind != "" && kind[0] >= 'A' && kind[0] <= 'Z' || kind == "__getitem__"
}
