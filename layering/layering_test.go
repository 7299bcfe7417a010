// Package layering holds the test of the house's import layers: every
// package sits in one layer, and no package imports one in a higher layer.
// docs/layers.md is generated from the list below (go test ./layering
// -update).
package layering

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/modelbridge/modelbridge"

// layer is one level of the import graph. Packages name paths relative to
// the module; "dir/..." is dir and every package below it. A package
// belongs to the layer of its longest matching pattern.
type layer struct {
	name     string
	packages []string
	why      string
}

// layers lists the house top to bottom. A package may import packages of
// its own layer and of the layers below it, never of a layer above.
var layers = []layer{
	{"tests only", []string{"e2e/...", "robust/...", "layering/...", "internal/testfix/torchtrace"},
		"packages of tests and test helpers that run whole conversions, which only tests import and which may use every part"},
	{"commands", []string{"cmd/..."},
		"flags and printing; the only place every part meets"},
	{"assembly", []string{"pipeline", "allformats", "opmatrix", "optimize/ortmeasure"},
		"what gathers the backends: the convert pipeline, the registration of every format, the op support matrix, ONNX Runtime timing for the optimizer"},
	{"backends", []string{"importers/...", "exporters/...", "optimize/..."},
		"each reads, writes or rewrites canonical graphs through the registry and the interpreter"},
	{"registry and interpreter", []string{"formats/...", "interp/..."},
		"what backends plug into (formats) and what runs a graph (interp)"},
	{"canonical helpers", []string{"internal/compare", "internal/graphdraw", "internal/mxparams", "internal/npy", "internal/onnxtensor", "internal/runtimes/...", "internal/tensorfile", "internal/testfix", "internal/testfix/readcheck"},
		"helpers that know canonical tensors or graphs"},
	{"canonical IR", []string{"canon/..."},
		"graphs, ops, shapes, dtypes"},
	{"helpers", []string{"internal/..."},
		"file, encoding and process helpers that know nothing of models"},
}

// testOnly are the packages that only tests may import.
var testOnly = []string{"internal/testfix/..."}

var update = flag.Bool("update", false, "rewrite docs/layers.md from the layer list")

func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

// layerOf returns the index of pkg's layer, or -1.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.packages {
			if matches(p, pkg) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// pkgImports is one package of the module with the module packages its
// non-test files import.
type pkgImports struct {
	path    string
	imports []string
}

// listPackages runs go list over the module.
func listPackages(t *testing.T) []pkgImports {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; the layering test lists packages with it")
	}
	watchSources(t, "..")
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkgImports
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		p := pkgImports{path: relative(fields[0])}
		for _, imp := range fields[1:] {
			if r := relative(imp); r != imp {
				p.imports = append(p.imports, r)
			}
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; expected the whole module:\n%s", len(pkgs), out)
	}
	return pkgs
}

// watchSources stats every Go file and folder of the module: go test
// caches a result until a file the test looked at changes, and the files
// go list reads are not seen otherwise, so a new upward import would
// pass from the cache.
func watchSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, ".go") || d.Name() == "go.mod" {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// relative strips the module path ("canon" for module+"/canon"); other
// paths are returned unchanged.
func relative(path string) string {
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return path
}

// violations lists every package in no layer, every import that runs
// upward and every import of a test-only package outside tests.
func violations(pkgs []pkgImports) []string {
	var out []string
	for _, p := range pkgs {
		from := layerOf(p.path)
		if from < 0 {
			out = append(out, fmt.Sprintf("package %s is in no layer: add it to layers in layering/layering_test.go and run go test ./layering -update", p.path))
			continue
		}
		for _, imp := range p.imports {
			if to := layerOf(imp); to >= 0 && to < from {
				out = append(out, fmt.Sprintf("%s (layer %q) imports %s (layer %q), which sits above it", p.path, layers[from].name, imp, layers[to].name))
			}
			for _, tp := range testOnly {
				if matches(tp, imp) && !matches(tp, p.path) {
					out = append(out, fmt.Sprintf("%s imports %s, which only tests may import", p.path, imp))
				}
			}
		}
	}
	return out
}

func TestNoImportRunsUpward(t *testing.T) {
	for _, v := range violations(listPackages(t)) {
		t.Error(v)
	}
}

// The check finds what it is for: an import that runs upward, a package
// no layer lists, production code importing a test helper.
func TestViolationsAreFound(t *testing.T) {
	pkgs := []pkgImports{
		{path: "canon", imports: []string{"interp"}},
		{path: "interp", imports: []string{"canon", "internal/optable"}},
		{path: "importers/pt2", imports: []string{"importers/torch"}},
		{path: "newtop"},
		{path: "optimize", imports: []string{"internal/testfix"}},
	}
	got := violations(pkgs)
	want := []string{`canon (layer "canonical IR") imports interp`, "package newtop is in no layer", "optimize imports internal/testfix"}
	if len(got) != len(want) {
		t.Fatalf("violations = %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("violation %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}

func TestLayerOf(t *testing.T) {
	for _, c := range []struct {
		pkg   string
		layer string
	}{
		{"cmd/modelbridge", "commands"},
		{"optimize/ortmeasure", "assembly"},
		{"optimize", "backends"},
		{"importers/torch/torchscript", "backends"},
		{"interp", "registry and interpreter"},
		{"internal/tensorfile", "canonical helpers"},
		{"internal/testfix/readcheck", "canonical helpers"},
		{"canon", "canonical IR"},
		{"internal/regfile", "helpers"},
	} {
		if i := layerOf(c.pkg); i < 0 || layers[i].name != c.layer {
			t.Errorf("layerOf(%s) = %d, want layer %q", c.pkg, i, c.layer)
		}
	}
}

// docs/layers.md is what the list says.
func TestDocsAreCurrent(t *testing.T) {
	want := markdown()
	path := filepath.Join("..", "docs", "layers.md")
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./layering -update)", err)
	}
	if string(got) != want {
		t.Errorf("docs/layers.md is out of date with layering/layering_test.go; run go test ./layering -update")
	}
}

func markdown() string {
	var b strings.Builder
	fmt.Fprintln(&b, "# Import layers")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Generated from `layering/layering_test.go` by `go test ./layering -update`.")
	fmt.Fprintln(&b, "Layers run top to bottom: a package imports packages of its own layer and of")
	fmt.Fprintln(&b, "the layers below it, never of a layer above; `go test ./layering` fails naming")
	fmt.Fprintln(&b, "any import that runs upward and any package no layer lists. `dir/...` is dir and")
	fmt.Fprintln(&b, "every package below it; a package belongs to its longest matching pattern.")
	fmt.Fprintln(&b, "Only tests import "+strings.Join(quoted(testOnly), ", ")+".")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| # | layer | packages | what it holds |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for i, l := range layers {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, l.name, strings.Join(quoted(l.packages), ", "), l.why)
	}
	return b.String()
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}
