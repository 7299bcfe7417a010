package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

var updateAtenRegistry = flag.Bool("update-aten-registry", false,
	"rewrite testdata/aten-registry-pass.txt with the registry ops that pass now")

// atenRegistryPassList names the registry ops known to import and match;
// a listed op that does not is a regression and fails the test.
const atenRegistryPassList = "testdata/aten-registry-pass.txt"

// TestAtenRegistry measures the TorchScript importer against PyTorch's own
// list of operators: every aten op that torch.onnx (PyTorch 1.13, opset 17)
// has a symbolic function for. testdata/make_aten_registry_cases.py traces
// one or more tiny modules per op and records their inputs (dtype and
// shape) and PyTorch's eager outputs; each case is read through the
// TorchScript importer, run by the interpreter and compared (relative
// error 1e-4 to the largest output magnitude, integers and booleans exact,
// random ops by shape, dtype and range).
//
// A case that imports and runs but gives a wrong number fails the test, as
// does an op of testdata/aten-registry-pass.txt that no longer passes. The
// summary table (passed, refused with the reasons grouped, wrong) and the
// share of the registry are logged. The cases are made once into
// MODELBRIDGE_ATEN_DIR (default: the user cache dir's
// modelbridge/aten-registry), one folder per version of the generator.
//
//	go test ./e2e -run TestAtenRegistry -v                         the table
//	go test ./e2e -run TestAtenRegistry -update-aten-registry       rewrite the pass list and
//	                                                                the table `modelbridge ops --aten` reads
//	MODELBRIDGE_ATEN_TABLE=docs/aten-registry.md go test ./e2e -run TestAtenRegistry
func TestAtenRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: makes and runs about 390 traced modules with PyTorch 1.13")
	}
	python := testfix.Torch(t, "onnx")
	version := testfix.TorchVersion(t)
	if !strings.HasPrefix(version, "1.13") {
		t.Skipf("skipping: the registry table is PyTorch 1.13's; %s has PyTorch %s", python, version)
	}
	root := testfix.RepoRoot()
	began := time.Now()
	dir := atenRegistryCases(t, python, version, filepath.Join(root, "testdata", "make_aten_registry_cases.py"))
	made := time.Since(began)

	reg := readAtenRegistry(t, dir)
	checked := time.Now()
	results := map[string]*atenOpResult{}
	for _, op := range reg.ops {
		results[op] = &atenOpResult{op: op}
	}
	for _, c := range reg.cases {
		res := results[c.op]
		if res == nil {
			t.Fatalf("INDEX.tsv case %s names %s, which REGISTRY.txt does not list", c.name, c.op)
		}
		out := c.check()
		out.caseName = c.name
		res.cases = append(res.cases, out)
		if out.verdict != atenPass && testing.Verbose() {
			t.Logf("%s (%s): %s: %s", c.name, c.op, out.verdict, firstLine(out.reason))
		}
		if out.verdict == atenWrong {
			t.Errorf("%s (case %s) gives a wrong result: %s", c.op, c.name, out.reason)
		}
		if out.verdict == atenPanic {
			t.Errorf("%s (case %s) panics: %s", c.op, c.name, out.reason)
		}
	}
	for op, why := range reg.notTraced {
		if res := results[op]; res != nil {
			res.notTraced = why
		}
	}
	passList := readCaseList(t, filepath.Join(root, atenRegistryPassList))
	var passing []string
	for _, op := range reg.ops {
		v := results[op].verdict()
		if v == atenPass {
			passing = append(passing, op)
			if !passList[op] {
				t.Logf("%s passes and is not in %s yet", op, atenRegistryPassList)
			}
		} else if passList[op] {
			t.Errorf("%s passed before and now does not: %s", op, results[op].reason())
		}
	}
	for op := range passList {
		if results[op] == nil {
			t.Errorf("%s lists %s, which the registry does not have", atenRegistryPassList, op)
		}
	}
	table := atenRegistryTable(reg, results)
	dtypes := "the reader is told each input's dtype (ReadOptions.InputDTypes)"
	if !atenReaderTakesDTypes {
		dtypes = "ReadOptions takes no input dtypes here: the importer types inputs f32"
	}
	t.Logf("aten registry (made in %v, checked in %v; %s):\n%s", made.Round(time.Millisecond),
		time.Since(checked).Round(time.Millisecond), dtypes, table)
	if p := os.Getenv("MODELBRIDGE_ATEN_TABLE"); p != "" {
		if err := os.WriteFile(p, []byte(atenRegistryDocHead+table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkAtenRegistryTable(t, root, reg, results)
	if *updateAtenRegistry {
		sort.Strings(passing)
		if err := os.WriteFile(filepath.Join(root, atenRegistryPassList), []byte(strings.Join(passing, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// atenRegistryTable is the file `modelbridge ops --aten` reads: each
// registry op with the operators its cases are traced as, or why none.
const atenRegistryTableFile = "importers/torch/torchscript/aten_registry.tsv"

// checkAtenRegistryTable keeps atenRegistryTableFile in step with the
// cases (rewriting it with -update-aten-registry), and checks that every
// op that passes is one the importer's static view calls handled.
func checkAtenRegistryTable(t *testing.T, root string, reg *atenRegistry, results map[string]*atenOpResult) {
	kinds := map[string]map[string]bool{}
	for _, c := range reg.cases {
		if kinds[c.op] == nil {
			kinds[c.op] = map[string]bool{}
		}
		for _, k := range strings.Split(c.kinds, ",") {
			if k != "" {
				kinds[c.op][k] = true
			}
		}
	}
	var b strings.Builder
	for _, op := range reg.ops {
		var ks []string
		for k := range kinds[op] {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		why := ""
		if len(ks) == 0 {
			why = reg.notTraced[op]
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", op, strings.Join(ks, ","), why)
	}
	path := filepath.Join(root, atenRegistryTableFile)
	if *updateAtenRegistry {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have, err := os.ReadFile(path); err != nil || string(have) != b.String() {
		t.Errorf("%s is not in step with testdata/make_aten_registry_cases.py (%v); run go test ./e2e -run TestAtenRegistry -update-aten-registry", atenRegistryTableFile, err)
		return
	}
	static, err := torchscript.AtenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range static {
		if r := results[o.Name]; r != nil && r.verdict() == atenPass && !o.Handled() {
			t.Errorf("%s passes, but `modelbridge ops --aten` says the importer lacks %v", o.Name, o.Missing)
		}
	}
}

// atenRegistryCases returns the folder of the cases the current generator
// and PyTorch make, making them unless the cache holds them. Each version
// of the generator has its own folder, made under a temporary name and
// renamed when complete, so that test runs of different checkouts sharing
// the cache neither see half-made cases nor remove each other's.
func atenRegistryCases(t *testing.T, python, version, generator string) string {
	base := os.Getenv("MODELBRIDGE_ATEN_DIR")
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache dir for the registry cases (set MODELBRIDGE_ATEN_DIR): %v", err)
		}
		base = filepath.Join(cache, "modelbridge", "aten-registry")
	}
	src, err := os.ReadFile(generator)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(src, version...))
	dir := filepath.Join(base, "v"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "INDEX.tsv")); err == nil {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: not pruned
		return dir
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(base, "making-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp) // left only when the rename did not happen
	out, err := exec.Command(python, generator, tmp).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", generator, tmp, err, zooFailures(out))
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "INDEX.tsv")); statErr != nil {
			t.Fatalf("keeping the registry cases: %v", err)
		}
		// Another run made the same cases meanwhile.
	}
	pruneAtenVersions(base, dir)
	return dir
}

// pruneAtenVersions removes cases of other generator versions (and
// unfinished makes) not touched for a day.
func pruneAtenVersions(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(base, e.Name())
		info, err := e.Info()
		if err != nil || p == keep || !e.IsDir() || time.Since(info.ModTime()) < 24*time.Hour {
			continue
		}
		if strings.HasPrefix(e.Name(), "v") || strings.HasPrefix(e.Name(), "making-") {
			os.RemoveAll(p)
		}
	}
}

// atenRegistry is what the generator wrote: the registry's ops, the cases
// and the ops no standalone traced module exercises.
type atenRegistry struct {
	ops       []string
	cases     []*atenCase
	notTraced map[string]string
}

func readAtenRegistry(t *testing.T, dir string) *atenRegistry {
	reg := &atenRegistry{notTraced: map[string]string{}}
	for _, line := range readLines(t, filepath.Join(dir, "REGISTRY.txt")) {
		reg.ops = append(reg.ops, line)
	}
	for i, line := range readLines(t, filepath.Join(dir, "INDEX.tsv")) {
		f := strings.Split(line, "\t")
		if i == 0 {
			continue // header
		}
		if len(f) != 6 {
			t.Fatalf("INDEX.tsv line %d: want 6 tab-separated fields, have %d", i+1, len(f))
		}
		c := &atenCase{op: f[0], name: f[1], mode: f[3], kinds: f[4], note: f[5], dir: filepath.Join(dir, f[1])}
		specs, err := parseAtenInputs(f[2])
		if err != nil {
			t.Fatalf("INDEX.tsv line %d: %v", i+1, err)
		}
		c.inputs = specs
		reg.cases = append(reg.cases, c)
	}
	for i, line := range readLines(t, filepath.Join(dir, "NOT_TRACED.tsv")) {
		if i == 0 {
			continue
		}
		op, why, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("NOT_TRACED.tsv line %d: want op<TAB>reason", i+1)
		}
		reg.notTraced[op] = why
	}
	if len(reg.ops) == 0 || len(reg.cases) == 0 {
		t.Fatalf("%s holds no registry or no cases", dir)
	}
	return reg
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// atenOpResult gathers one registry op's cases.
type atenOpResult struct {
	op        string
	cases     []atenOutcome
	notTraced string
}

// verdict is the op's: wrong or panic if any case is, refused if any case
// is refused, pass when every case passes; ops without cases are "not
// traced".
func (r *atenOpResult) verdict() atenVerdict {
	if len(r.cases) == 0 {
		return atenNotTraced
	}
	v := atenPass
	for _, c := range r.cases {
		if c.verdict > v {
			v = c.verdict
		}
	}
	return v
}

// failing is the first case with the op's verdict (nil for a pass or an
// op without cases).
func (r *atenOpResult) failing() *atenOutcome {
	v := r.verdict()
	for i, c := range r.cases {
		if c.verdict == v && v != atenPass {
			return &r.cases[i]
		}
	}
	return nil
}

// reason says why the op does not pass.
func (r *atenOpResult) reason() string {
	if f := r.failing(); f != nil {
		return f.reason
	}
	return r.notTraced
}

// label names the op in the table: with the failing case when the op has
// several, and with the operator the importer lacks when that is another.
func (r *atenOpResult) label() string {
	s := r.op
	f := r.failing()
	if f == nil {
		return s
	}
	var notes []string
	if f.caseName != r.op {
		notes = append(notes, "case "+f.caseName)
	}
	if m := atenUnsupported.FindStringSubmatch(f.reason); m != nil && m[1] != r.op && m[1] != r.op+"_" {
		notes = append(notes, "needs "+m[1])
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// atenRegistryTable renders the summary: counts, then every op that does
// not pass, grouped by reason.
func atenRegistryTable(reg *atenRegistry, results map[string]*atenOpResult) string {
	byVerdict := map[atenVerdict][]string{}
	for _, op := range reg.ops {
		v := results[op].verdict()
		byVerdict[v] = append(byVerdict[v], op)
	}
	total := len(reg.ops)
	pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total)) }
	cases := map[atenVerdict]int{}
	for _, r := range results {
		for _, c := range r.cases {
			cases[c.verdict]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| verdict | ops | share of the %d registry ops | cases |\n|---|---|---|---|\n", total)
	for _, v := range []atenVerdict{atenPass, atenRefusedDType, atenRefused, atenWrong, atenPanic, atenNotTraced} {
		fmt.Fprintf(&b, "| %s | %d | %s | %d |\n", v, len(byVerdict[v]), pct(len(byVerdict[v])), cases[v])
	}
	for _, v := range []atenVerdict{atenWrong, atenPanic, atenRefusedDType, atenRefused, atenNotTraced} {
		ops := byVerdict[v]
		if len(ops) == 0 {
			continue
		}
		groups := map[string][]string{}
		for _, op := range ops {
			g := results[op].reason()
			if v != atenNotTraced { // the generator's reasons are already one per group
				g = atenReasonGroup(g)
			}
			groups[g] = append(groups[g], results[op].label())
		}
		var keys []string
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(groups[keys[i]]) != len(groups[keys[j]]) {
				return len(groups[keys[i]]) > len(groups[keys[j]])
			}
			return keys[i] < keys[j]
		})
		fmt.Fprintf(&b, "\n### %s (%d)\n\n", v, len(ops))
		for _, k := range keys {
			fmt.Fprintf(&b, "- %s: %s\n", k, strings.Join(groups[k], ", "))
		}
	}
	return b.String()
}

// atenRegistryDocHead introduces the table in docs/aten-registry.md.
const atenRegistryDocHead = `# The torch.onnx operator registry, read from TorchScript

PyTorch 1.13's ONNX exporter has a symbolic function for each aten operator
listed here (opset 17). ` + "`testdata/make_aten_registry_cases.py`" + ` traces
one or more tiny modules per operator with PyTorch 1.13; each ` + "`traced.pt`" + `
is read by modelbridge's TorchScript importer, run by the interpreter and
compared with PyTorch's eager output (relative error 1e-4 to the largest
output magnitude; integers and booleans exact; random sampling by shape,
dtype and range). An operator passes when all its cases do. Made by

    MODELBRIDGE_ATEN_TABLE=docs/aten-registry.md go test ./e2e -run TestAtenRegistry

`
