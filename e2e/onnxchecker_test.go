package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/modelbridge/modelbridge/allformats" // every format the fixtures come in
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// checkerScript checks each model path read from stdin with onnx's full
// checker (structure, then shape inference) and prints one line per model.
const checkerScript = `
import sys, onnx, onnx.defs
known_ml = max(s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.domain == "ai.onnx.ml")
for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        m = onnx.load(path)
        ml = max([o.version for o in m.opset_import if o.domain == "ai.onnx.ml"], default=0)
        if ml > known_ml:
            print("NEWER\t" + path + "\tai.onnx.ml opset %d; the installed onnx knows up to %d" % (ml, known_ml), flush=True)
            continue
        onnx.checker.check_model(m, full_check=True)
        print("OK\t" + path, flush=True)
    except Exception as e:
        print("ERR\t" + path + "\t" + str(e).replace("\n", " ")[:400], flush=True)
`

// olderChecker lists the node cases whose ONNX 1.22 outputs an older onnx
// checker's shape inference disputes, with why.
var olderChecker = map[string]string{
	// ONNX 1.16 fixed ceil-mode pooling: a window that would start in the
	// end padding is dropped. The cases (and ONNX Runtime) follow the fix;
	// onnx before 1.16 infers one more output.
	"test_averagepool_2d_ceil_last_window_starts_on_pad": "ceil-mode window starting in the padding (ONNX 1.16 fix)",
	"test_maxpool_2d_ceil_output_size_reduce_by_one":     "ceil-mode window starting in the padding (ONNX 1.16 fix)",
	// Newer ONNX reads a one-sided spectrum in DFT-17's inverse (the
	// suite's own case sets both attributes); onnx 1.12 refuses the pair.
	"test_dft_irfft_opset19": "one-sided inverse DFT, which newer ONNX allows",
}

// onnxChecker returns the newest opset the installed onnx package knows,
// or skips the test when /usr/bin/python3 has no onnx.
func onnxChecker(t *testing.T) int {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c", "import onnx, onnx.defs; print(onnx.defs.onnx_opset_version())").Output()
	if err != nil {
		t.Skipf("skipping: /usr/bin/python3 cannot import onnx (apt-get install python3-onnx): %v", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("onnx reported opset %q", out)
	}
	return v
}

// checkerSources lists the fixture models that convert to ONNX: the real
// models of every format at every opset, the node suites' cases at a few.
func checkerSources(fix string) (real, cases []string) {
	for _, pat := range []string{"torch/*/model.onnx", "torch/*/traced.pt", "torch2/*/model.onnx", "torch2/*/traced.pt",
		"torch2/*/*.pt2", "mxnet/*/*-symbol.json", "caffe/*/*.prototxt"} {
		m, _ := filepath.Glob(filepath.Join(fix, pat))
		real = append(real, m...)
	}
	for _, suite := range []string{"onnx-node", "onnx-node-1.22"} {
		m, _ := filepath.Glob(filepath.Join(fix, suite, "*", "model.onnx"))
		cases = append(cases, m...)
	}
	return real, cases
}

// TestONNXChecker converts every fixture model that modelbridge reads to
// ONNX at each opset from 11 to the newest both modelbridge writes and the
// installed onnx package knows (onnx 1.12: opset 17; newer opsets are left
// to ONNX Runtime's round trips), and runs onnx's full checker on each file.
// Node-suite cases are written at opset 11 and the newest checked.
// An export refused for an op the opset cannot express is counted, not a
// failure; so is a model whose input rank the file leaves open.
func TestONNXChecker(t *testing.T) {
	fix := testfix.Fixtures(t)
	known := onnxChecker(t)
	newest := min(known, onnxexport.MaxOpset)
	var every, few []int
	for o := onnxexport.MinOpset; o <= newest; o++ {
		every = append(every, o)
	}
	few = []int{onnxexport.MinOpset, newest}
	real, cases := checkerSources(fix)
	tmp := t.TempDir()
	var written []string
	var models, unread, openRank, refused int
	write := func(src string, opsets []int) {
		g, _, err := formats.Read(src, "", formats.ReadOptions{})
		if err != nil {
			unread++
			return
		}
		defer g.Close()
		if g.Meta.WeightsMissing {
			unread++
			return
		}
		for _, in := range g.Inputs {
			if !in.RankKnown {
				openRank++
				t.Logf("%s: input %q has an open rank; converting it needs --input-shape", src, in.Name)
				return
			}
		}
		models++
		for _, o := range opsets {
			p := filepath.Join(tmp, fmt.Sprintf("%d@%d.onnx", len(written), o))
			if err := onnxexport.Write(g, p, formats.WriteOptions{Opset: o}); err != nil {
				refused++
				continue
			}
			written = append(written, src+"\t"+strconv.Itoa(o)+"\t"+p)
		}
	}
	for _, src := range real {
		write(src, every)
	}
	for _, src := range cases {
		write(src, few)
	}

	cmd := exec.Command("/usr/bin/python3", "-c", checkerScript)
	var stdin strings.Builder
	label, source := map[string]string{}, map[string]string{}
	for _, w := range written {
		parts := strings.Split(w, "\t")
		label[parts[2]] = fmt.Sprintf("%s@%s", strings.TrimPrefix(parts[0], fix+"/"), parts[1])
		source[parts[2]] = parts[0]
		stdin.WriteString(parts[2] + "\n")
	}
	cmd.Stdin = strings.NewReader(stdin.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ok, bad, disputed, newer int
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		switch {
		case len(f) >= 2 && f[0] == "OK":
			ok++
		case len(f) == 3 && f[0] == "NEWER": // left to ONNX Runtime's round trips, as newer opsets are
			newer++
			t.Logf("%s: not checked: %s", label[f[1]], f[2])
		case len(f) == 3 && olderChecker[filepath.Base(filepath.Dir(source[f[1]]))] != "" && strings.Contains(f[2], "ShapeInferenceError"):
			disputed++
			t.Logf("%s: the installed onnx (opsets up to %d) disputes the case (%s): %s", label[f[1]], known, olderChecker[filepath.Base(filepath.Dir(source[f[1]]))], f[2])
		case len(f) == 3:
			bad++
			t.Errorf("%s: onnx checker: %s", label[f[1]], f[2])
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("checker script: %v", err)
	}
	if ok+bad+disputed+newer != len(written) {
		t.Errorf("the checker reported %d of %d models", ok+bad+disputed+newer, len(written))
	}
	t.Logf("onnx checker (knows opsets up to %d): %d models from %d fixtures checked at opsets %d-%d (node cases at %v): %d pass, %d fail, %d disputed by the older checker, %d in an ai.onnx.ml opset newer than it knows; %d exports refused by opset, %d fixtures not read, %d with an open input rank",
		known, len(written), models, onnxexport.MinOpset, newest, few, ok, bad, disputed, newer, refused, unread, openRank)
}
