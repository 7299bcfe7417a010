package e2e

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	_ "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/importers/tflite"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
	"github.com/modelbridge/modelbridge/interp"
)

// armnnScript runs a .tflite file in Arm NN's reference backend.
var armnnScript = filepath.Join(testfix.RepoRoot(), "importers", "tflite", "testdata", "armnn_run.py")

// runArmNN runs model in Arm NN on inputs (in graph input order) and
// returns its outputs, or skips when pyarmnn is not installed.
func runArmNN(t *testing.T, model string, inputs []*canon.Tensor) []*canon.Tensor {
	t.Helper()
	res, err := runArmNNErr(t, model, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runArmNNErr is runArmNN returning Arm NN's failure as an error.
func runArmNNErr(t *testing.T, model string, inputs []*canon.Tensor) ([]*canon.Tensor, error) {
	t.Helper()
	dir := t.TempDir()
	args := []string{armnnScript, model}
	for i, in := range inputs {
		p := filepath.Join(dir, "in"+strconv.Itoa(i)+".npy")
		var buf bytes.Buffer
		if err := npy.Write(&buf, in); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command("/usr/bin/python3", append(args, out)...)
	msg, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 3 || os.IsNotExist(err) {
		t.Skipf("skipping: Arm NN is not installed (apt-get install python3-pyarmnn libarmnn-cpuref-backend22 libarmnntfliteparser22): %s", bytes.TrimSpace(msg))
	}
	if err != nil {
		lines := bytes.Split(bytes.TrimSpace(msg), []byte("\n"))
		return nil, fmt.Errorf("Arm NN failed: %v: %s", err, lines[len(lines)-1])
	}
	var res []*canon.Tensor
	for i := 0; ; i++ {
		p := filepath.Join(out, "output_"+strconv.Itoa(i)+".npy")
		if _, err := os.Stat(p); err != nil {
			break
		}
		tt, err := npy.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, tt)
	}
	return res, nil
}

func tfliteFixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(testfix.Fixtures(t), "tflite", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s not found", p)
	}
	return p
}

// TestTFLiteFloatAgainstArmNN runs hello_world_float in the interpreter,
// in Arm NN on the .tflite file and in ONNX Runtime on its ONNX export, on
// the same inputs.
func TestTFLiteFloatAgainstArmNN(t *testing.T) {
	path := tfliteFixture(t, "hello_world_float.tflite")
	g := load(t, path, "", formats.ReadOptions{})
	rt := testfix.ORT(t)
	for _, x := range []float32{-1.5, 0, 0.5, 3.1, 6.2} {
		in := canon.NewFloat32Tensor(g.Inputs[0].Name, []int64{1, 1}, []float32{x})
		feeds := map[string]*canon.Tensor{in.Name: in}
		got, err := interp.Run(g, feeds)
		if err != nil {
			t.Fatal(err)
		}
		mine := got[g.Outputs[0].Name]
		arm := runArmNN(t, path, []*canon.Tensor{in})[0]
		ort := runORT(t, rt, g, feeds)[0]
		mv, _ := mine.Float64s()
		av, _ := arm.Float64s()
		ov, _ := ort.Float64s()
		t.Logf("x=%g: interpreter %g, Arm NN %g, ONNX Runtime %g", x, mv, av, ov)
		if d := maxAbsDiff(t, mine, arm); d > 1e-6 {
			t.Errorf("x=%g: interpreter and Arm NN differ by %g", x, d)
		}
		if d := maxAbsDiff(t, ort, arm); d > 1e-6 {
			t.Errorf("x=%g: ONNX Runtime (ONNX export) and Arm NN differ by %g", x, d)
		}
	}
}

// TestTFLiteInt8AgainstArmNNAndORT runs hello_world_int8: the interpreter
// and ONNX Runtime (on the ONNX export of the exact integer arithmetic)
// must agree bit for bit; Arm NN's reference backend computes quantized
// fully connected layers in float, so it may differ by one step.
func TestTFLiteInt8AgainstArmNNAndORT(t *testing.T) {
	path := tfliteFixture(t, "hello_world_int8.tflite")
	g := load(t, path, "", formats.ReadOptions{})
	rt := testfix.ORT(t)
	for _, x := range []int8{-128, -100, -30, 0, 20, 77, 127} {
		in := &canon.Tensor{Name: g.Inputs[0].Name, DType: canon.Int8, Shape: []int64{1, 1}, Data: []byte{byte(x)}}
		feeds := map[string]*canon.Tensor{in.Name: in}
		got, err := interp.Run(g, feeds)
		if err != nil {
			t.Fatal(err)
		}
		mine := got[g.Outputs[0].Name]
		ort := runORT(t, rt, g, feeds)[0]
		arm := runArmNN(t, path, []*canon.Tensor{in})[0]
		if !bytes.Equal(mine.Data, ort.Data) || mine.DType != ort.DType {
			t.Errorf("x=%d: interpreter %v (%s) and ONNX Runtime %v (%s) differ", x, mine.Data, mine.DType, ort.Data, ort.DType)
		}
		t.Logf("x=%d: interpreter %d, ONNX Runtime %d, Arm NN %d", x, int8(mine.Data[0]), int8(ort.Data[0]), int8(arm.Data[0]))
		if d := maxAbsDiff(t, mine, arm); d > 1 {
			t.Errorf("x=%d: interpreter gives %d, Arm NN %d", x, int8(mine.Data[0]), int8(arm.Data[0]))
		}
	}
}

// dumpLSTMWeights writes the gate tensors of the first operator of a
// TFLite file (an UNIDIRECTIONAL_SEQUENCE_LSTM) as .npy files, read with
// the generated flatbuffer accessors only, and returns its cell_clip.
func dumpLSTMWeights(t *testing.T, path, dir string) float32 {
	t.Helper()
	buf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := tflitefb.GetRootAsModel(buf, 0)
	var sg tflitefb.SubGraph
	var op tflitefb.Operator
	if !m.Subgraphs(&sg, 0) || !sg.Operators(&op, 0) {
		t.Fatal("no operator 0")
	}
	names := []string{1: "w_i", "w_f", "w_c", "w_o", "r_i", "r_f", "r_c", "r_o", 12: "b_i", "b_f", "b_c", "b_o"}
	for slot, name := range names {
		if name == "" {
			continue
		}
		var tt tflitefb.Tensor
		var bf tflitefb.Buffer
		if !sg.Tensors(&tt, int(op.Inputs(slot))) || !m.Buffers(&bf, int(tt.Buffer())) {
			t.Fatalf("input %d is missing", slot)
		}
		var shape []int64
		for k := 0; k < tt.ShapeLength(); k++ {
			shape = append(shape, int64(tt.Shape(k)))
		}
		ct := &canon.Tensor{Name: name, DType: canon.Float32, Shape: shape, Data: bf.DataBytes()}
		var out bytes.Buffer
		if err := npy.Write(&out, ct); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".npy"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var opts tflitefb.UnidirectionalSequenceLSTMOptions
	var tab flatbuffers.Table
	if !op.BuiltinOptions(&tab) {
		return 0
	}
	opts.Init(tab.Bytes, tab.Pos)
	return opts.CellClip()
}

// TestTFLiteLSTMReference runs trained_lstm (an LSTM with cell_clip, then
// a fully connected layer and softmax) in the interpreter and in ONNX
// Runtime on its ONNX export, and checks the LSTM layer's semantics
// against a NumPy reference of TFLite's kernel (Arm NN has no
// UNIDIRECTIONAL_SEQUENCE_LSTM).
func TestTFLiteLSTMReference(t *testing.T) {
	path := tfliteFixture(t, "trained_lstm.tflite")
	g := load(t, path, "", formats.ReadOptions{})
	rt := testfix.ORT(t)
	inputs, err := tensorfile.Random(g.Inputs, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Inputs 40 times larger than MNIST's saturate the gates. (Even so the
	// cell state of this model stays within its clip of 10, so the clip
	// itself is not exercised by this fixture.)
	x := inputs[g.Inputs[0].Name]
	xv, _ := x.Float64s()
	big := make([]float32, len(xv))
	for i, v := range xv {
		big[i] = float32(40 * v)
	}
	x = canon.NewFloat32Tensor(x.Name, x.Shape, big)
	inputs[x.Name] = x
	// The LSTM layer alone: the graph's value for its output tensor.
	lstmOut := "tfl.unidirectional_sequence_lstm"
	sub := *g
	sub.Outputs = append([]canon.ValueInfo{{Name: lstmOut}}, g.Outputs...)
	got, err := interp.Run(&sub, inputs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	clip := dumpLSTMWeights(t, path, dir)
	if clip != 10 {
		t.Fatalf("cell_clip is %g; the fixture has 10", clip)
	}
	var xb bytes.Buffer
	if err := npy.Write(&xb, x); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "x.npy"), xb.Bytes(), 0o644)
	ref := filepath.Join(dir, "ref.npy")
	script := filepath.Join(testfix.RepoRoot(), "importers", "tflite", "testdata", "lstm_reference.py")
	if msg, err := exec.Command("/usr/bin/python3", script, filepath.Join(dir, "x.npy"), dir, "10", ref).CombinedOutput(); err != nil {
		t.Skipf("skipping the NumPy reference (/usr/bin/python3 with numpy is needed): %v\n%s", err, msg)
	}
	want, err := npy.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, got[lstmOut], want); d > 1e-5 {
		t.Errorf("LSTM output differs from the NumPy reference by %g", d)
	} else {
		t.Logf("LSTM output vs NumPy reference: max abs diff %g", d)
	}
	ort := runORT(t, rt, g, inputs)[0]
	if d := maxAbsDiff(t, got[g.Outputs[0].Name], ort); d > 1e-5 {
		t.Errorf("interpreter and ONNX Runtime differ by %g", d)
	} else {
		t.Logf("softmax output, interpreter vs ONNX Runtime: max abs diff %g", d)
	}
}

// TestTFLitePersonDetectInORT converts person_detect (an int8 MobileNet
// written as exact integer arithmetic) to ONNX and runs it in ONNX
// Runtime: its int8 outputs must equal the interpreter's on the same
// inputs. (Arm NN refuses the file: per-axis quantized biases.)
func TestTFLitePersonDetectInORT(t *testing.T) {
	path := tfliteFixture(t, "person_detect.tflite")
	g := load(t, path, "", formats.ReadOptions{})
	rt := testfix.ORT(t)
	for seed := int64(1); seed <= 3; seed++ {
		data := make([]byte, 96*96)
		rng := rand.New(rand.NewSource(seed))
		for i := range data {
			data[i] = byte(rng.Intn(256))
		}
		in := &canon.Tensor{Name: g.Inputs[0].Name, DType: canon.Int8, Shape: []int64{1, 96, 96, 1}, Data: data}
		feeds := map[string]*canon.Tensor{in.Name: in}
		got, err := interp.Run(g, feeds)
		if err != nil {
			t.Fatal(err)
		}
		mine := got[g.Outputs[0].Name]
		ort := runORT(t, rt, g, feeds)[0]
		t.Logf("seed %d: interpreter %v, ONNX Runtime %v (int8: [no person, person])", seed, int8s(mine.Data), int8s(ort.Data))
		if !bytes.Equal(mine.Data, ort.Data) || mine.DType != ort.DType {
			t.Errorf("seed %d: interpreter %v and ONNX Runtime %v differ", seed, int8s(mine.Data), int8s(ort.Data))
		}
	}
}

func int8s(b []byte) []int8 {
	out := make([]int8, len(b))
	for i, v := range b {
		out[i] = int8(v)
	}
	return out
}

// TestTFLiteSeanetInORT exports the SEANet int16 kernels to ONNX and runs
// them in ONNX Runtime on the fixtures' inputs: the integer arithmetic
// must give TFLite Micro's golden outputs there too.
func TestTFLiteSeanetInORT(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "tflite", "seanet")
	rt := testfix.ORT(t)
	models, _ := filepath.Glob(filepath.Join(dir, "*.tflite"))
	if len(models) == 0 {
		t.Skipf("skipping: no seanet fixtures in %s", dir)
	}
	for _, m := range models {
		stem := strings.TrimSuffix(filepath.Base(m), ".tflite")
		t.Run(stem, func(t *testing.T) {
			if stem == "pad0" {
				t.Skip("skipping: ONNX Runtime has no int16 Pad kernel (the interpreter matches the golden: importers/tflite TestSeanetGoldens)")
			}
			g := load(t, m, "", formats.ReadOptions{})
			ins, _ := filepath.Glob(filepath.Join(dir, stem+"_input*_int16.csv"))
			sort.Strings(ins)
			if len(ins) != len(g.Inputs) {
				t.Fatalf("%d int16 input files for %d graph inputs", len(ins), len(g.Inputs))
			}
			feeds := map[string]*canon.Tensor{}
			for k, in := range g.Inputs {
				shape, _ := in.StaticShape()
				v := csvInts(t, ins[k])
				data := make([]byte, 2*len(v))
				for i, x := range v {
					data[2*i], data[2*i+1] = byte(uint16(x)), byte(uint16(x)>>8)
				}
				feeds[in.Name] = &canon.Tensor{Name: in.Name, DType: canon.Int16, Shape: shape, Data: data}
			}
			got, err := runORT(t, rt, g, feeds)[0].Int64s()
			if err != nil {
				t.Fatal(err)
			}
			want := csvInts(t, filepath.Join(dir, stem+"_golden_int16.csv"))
			if len(got) != len(want) {
				t.Fatalf("%d outputs, golden has %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("ONNX Runtime output %d is %d, golden %d", i, got[i], want[i])
				}
			}
		})
	}
}

func csvInts(t *testing.T, path string) []int64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), ",") {
		if f = strings.TrimSpace(f); f != "" {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, v)
		}
	}
	return out
}
