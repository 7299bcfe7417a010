package torchscript

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// Every import in this package's tests checks that each operator emits
// only the kinds its table entry declares, so the coverage stays true.
func init() { checkEmittedKinds = true }

// TestCoverageNamesEveryKind: every registered kind is produced by some
// operator or declared unsupported with a reason, and the tables name only
// registered kinds.
func TestCoverageNamesEveryKind(t *testing.T) {
	for _, gap := range canon.Gaps(map[string]canon.Coverage{"torchscript importer": Coverage()}) {
		t.Error(gap)
	}
	produced := map[string]bool{}
	for name, e := range opTable {
		for _, k := range e.kinds {
			if canon.Lookup(k) == nil {
				t.Errorf("opTable[%q] declares kind %s, which canon does not register (stale entry)", name, k)
			}
			produced[k] = true
		}
	}
	for k := range builderKinds {
		if canon.Lookup(k) == nil {
			t.Errorf("builderKinds names %s, which canon does not register", k)
		}
		produced[k] = true
	}
	for k, reason := range opLacks {
		if canon.Lookup(k) == nil {
			t.Errorf("opLacks names %s, which canon does not register (stale entry)", k)
		}
		if produced[k] {
			t.Errorf("%s is produced by the table but also declared unsupported (%s)", k, reason)
		}
	}
}

// TestTracedGelu imports nn.GELU in both approximations as torch.jit.trace
// writes them (testdata/gelu.pt, made by make_fixtures.py) and compares
// with what PyTorch computed.
func TestTracedGelu(t *testing.T) {
	in, err := tensorfile.Load(filepath.Join("testdata", "gelu_input.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join("testdata", "gelu_output.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join("testdata", "gelu.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"#0": in.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var approx []canon.GeluApprox
	for _, n := range g.Nodes {
		if op, ok := n.Op.(*canon.Gelu); ok {
			approx = append(approx, op.Approximate)
		}
	}
	if len(approx) != 2 || approx[0] != canon.GeluTanh || approx[1] != canon.GeluExact {
		t.Fatalf("Gelu approximations %v, want [tanh none]", approx)
	}
	x := *in
	x.Name = g.Inputs[0].Name
	outs, err := interp.Run(g, map[string]*canon.Tensor{x.Name: &x})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := compare.RelativeToMax(outs[g.Outputs[0].Name], want)
	if err != nil {
		t.Fatal(err)
	}
	if rel > 1e-5 {
		t.Errorf("relative error %.3g against PyTorch > 1e-5", rel)
	}
}

// TestGeluForms: torch.gelu's approximate keyword, the in-place form, and
// a refusal for an approximation torch does not have.
func TestGeluForms(t *testing.T) {
	for _, c := range []struct {
		body    string
		want    canon.GeluApprox
		wantErr string
	}{
		{body: "torch.gelu(x)", want: canon.GeluExact},
		{body: `torch.gelu(x, approximate="none")`, want: canon.GeluExact},
		{body: `torch.gelu(x, approximate="tanh")`, want: canon.GeluTanh},
		{body: `torch.gelu_(torch.mul(x, 1), approximate="tanh")`, want: canon.GeluTanh},
		{body: `torch.gelu(x, approximate="fast")`, wantErr: `approximate="fast" is not a GELU approximation`},
	} {
		t.Run(c.body, func(t *testing.T) {
			p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + c.body + "\n")}, zip.Store)
			g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {7}}})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			last := g.Nodes[len(g.Nodes)-1]
			if op, ok := last.Op.(*canon.Gelu); !ok || op.Approximate != c.want {
				t.Fatalf("last node is %s %+v, want Gelu %s", last.Op.Kind(), last.Op, c.want)
			}
		})
	}
}

// TestProbe recognizes TorchScript archives by their code/ folder, and
// nothing else: a torch.save zip, another file, a missing file.
func TestProbe(t *testing.T) {
	if !Probe(filepath.Join("testdata", "gelu.pt")) {
		t.Error("gelu.pt is not recognized as TorchScript")
	}
	stateDict := writeArchive(t, map[string]string{"data.pkl": rootPickle, "data/0": "xxxx"}, zip.Store)
	if Probe(stateDict) {
		t.Error("a zip without code/ is taken for TorchScript")
	}
	other := filepath.Join(t.TempDir(), "x.pt")
	if err := os.WriteFile(other, []byte("\x80\x02not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Probe(other) || Probe(filepath.Join(t.TempDir(), "missing.pt")) {
		t.Error("a non-zip or missing file is taken for TorchScript")
	}
}

// TestRegistered: formats.Read picks this importer for a TorchScript
// archive without being told, and the graph owns its mapping.
func TestRegistered(t *testing.T) {
	g, imp, err := formats.Read(filepath.Join("testdata", "gelu.pt"), "", formats.ReadOptions{InputShapes: map[string][]int64{"#0": {2, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if imp.Name != FormatName || g.Meta.SourceFormat != FormatName || imp.Ops == nil {
		t.Errorf("read by %q with source format %q; want %q with an op coverage", imp.Name, g.Meta.SourceFormat, FormatName)
	}
	for _, w := range g.Initializers {
		if _, err := w.Float64s(); err != nil {
			t.Errorf("weight %s: %v", w.Name, err)
		}
	}
}

// TestUndeclaredKindIsCaught: a handler emitting a kind its entry does not
// declare is an error while checkEmittedKinds is set.
func TestUndeclaredKindIsCaught(t *testing.T) {
	e := entry(nil, "Relu")
	if err := verifyEmitted("torch.relu", e, []*canon.Node{{Op: &canon.Unary{Fn: canon.Relu}}}); err != nil {
		t.Errorf("declared kind refused: %v", err)
	}
	err := verifyEmitted("torch.relu", e, []*canon.Node{{Op: &canon.Unary{Fn: canon.Sigmoid}}})
	if err == nil || !strings.Contains(err.Error(), "Sigmoid") {
		t.Errorf("undeclared Sigmoid: error %v", err)
	}
}
