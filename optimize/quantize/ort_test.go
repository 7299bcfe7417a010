package quantize

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// checkONNX runs onnx's full checker (onnx 1.12 at /usr/bin/python3), or
// skips when it is absent.
func checkONNX(t *testing.T, path string) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import onnx").Run(); err != nil {
		t.Skipf("skipping: /usr/bin/python3 cannot import onnx: %v", err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", "import sys, onnx; m = onnx.load(sys.argv[1]); onnx.checker.check_model(m, full_check=True); assert max(o.version for o in m.opset_import if o.domain in ('', 'ai.onnx')) <= 17", path).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx checker refuses %s: %v\n%s", path, err, out)
	}
}

// runORT runs the model in ONNX Runtime on one input set and returns its
// outputs in graph order.
func runORT(t *testing.T, rt *ort.Runtime, model string, g *canon.Graph, in map[string]*canon.Tensor) []*canon.Tensor {
	t.Helper()
	var ins []*canon.Tensor
	for _, v := range g.Inputs {
		ins = append(ins, in[v.Name])
	}
	outs, err := rt.Run(model, ins, ort.Options{})
	if err != nil {
		t.Fatalf("ONNX Runtime: %v", err)
	}
	return outs
}

// The quantized models pass onnx's checker at opset 13, and ONNX Runtime
// (which fuses the QDQ pairs into integer kernels) agrees with the
// interpreter's QDQ arithmetic to within rounding of the requantization.
func TestQuantizedModelsInORT(t *testing.T) {
	rt := testfix.ORT(t)
	g := smallCNN()
	static, _, err := Static(g, randomInputs{g, 16, 1}, Options{Calibration: CalibrateOptions{Method: Entropy}})
	if err != nil {
		t.Fatal(err)
	}
	dyn, _, err := Dynamic(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A conv left float stays float in ONNX Runtime too (which would
	// otherwise quantize its weights itself, per tensor).
	c, err := Prepare(g, randomInputs{g, 16, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, _, err := c.Build([]string{"depthwise Conv", "Linear"})
	if err != nil {
		t.Fatal(err)
	}
	up := smallUpsampler()
	upq, _, err := Static(up, randomInputs{up, 16, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s8, _, err := Static(g, randomInputs{g, 16, 1}, Options{Activations: canon.Int8})
	if err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]*canon.Graph{"static": static, "dynamic": dyn, "kept float": kept, "resize": upq, "int8 activations": s8} {
		path := filepath.Join(t.TempDir(), name+".onnx")
		if err := onnxexport.Write(q, path, formats.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		checkONNX(t, path)
		p, err := interp.New(q)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 3; s++ {
			in, _ := randomInputs{q, 3, 42}.Sample(s)
			ours, err := p.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			theirs := runORT(t, rt, path, q, in)
			for i, o := range q.Outputs {
				a, b := ours[o.Name], theirs[i]
				var sig, noise float64
				for k := 0; k < len(a.Data)/4; k++ {
					x, y := f32At(a.Data, k), f32At(b.Data, k)
					sig += x * x
					noise += (x - y) * (x - y)
				}
				// Integer kernels requantize with one rounding where the QDQ
				// graph rounds in float: a step here and there, not more
				// (a conv ONNX Runtime quantized on its own would show as
				// 40-50 dB).
				db := SQNR(sig, noise)
				t.Logf("%s output %s, input %d: ONNX Runtime vs interpreter SQNR %.1f dB", name, o.Name, s, db)
				if !(db > 60) {
					t.Errorf("%s output %s, input %d: ONNX Runtime vs interpreter SQNR %.1f dB", name, o.Name, s, db)
				}
			}
		}
	}
}

// The quantized graph names its outputs as the float one does, so that
// the same inputs and check --layers line them up.
func TestNamesKept(t *testing.T) {
	g := smallCNN()
	q, _, err := Static(g, randomInputs{g, 2, 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range g.Outputs {
		if q.Outputs[i].Name != o.Name {
			t.Errorf("output %d is %q, was %q", i, q.Outputs[i].Name, o.Name)
		}
	}
	if !strings.HasPrefix(q.Nodes[0].Op.Kind(), "Quantize") {
		t.Errorf("first node %s, want the input's QuantizeLinear", q.Nodes[0].Op.Kind())
	}
}
