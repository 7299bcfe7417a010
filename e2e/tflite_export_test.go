package e2e

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	tfliteexport "github.com/modelbridge/modelbridge/exporters/tflite"
	"github.com/modelbridge/modelbridge/formats"
	_ "github.com/modelbridge/modelbridge/importers/onnx"
	_ "github.com/modelbridge/modelbridge/importers/pt2"
	_ "github.com/modelbridge/modelbridge/importers/tflite"
	_ "github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
	"github.com/modelbridge/modelbridge/interp"
)

// tfliteExportCase is a float model exported to .tflite and run in Arm NN.
type tfliteExportCase struct {
	name  string
	path  string
	shape []int64 // input shape for formats that do not record it
	// inner is how many TRANSPOSE ops the model needs inside beyond its
	// own: data a channels-last file holds in another order (a token
	// layer norm over an NCHW flatten's last axis).
	inner int
	// armGaps marks a model with ops Arm NN 22 does not read: it is
	// checked through the file read back only.
	armGaps bool
}

func tfliteExportCases(t *testing.T) []tfliteExportCase {
	root := testfix.RepoRoot()
	cases := []tfliteExportCase{
		{name: "tiny_convnet", path: filepath.Join(root, "testdata", "tiny_convnet.onnx")},
		{name: "resnet_blocks", path: filepath.Join(root, "exporters", "tflite", "testdata", "resnet_blocks.onnx")},
		{name: "mobile_blocks", path: filepath.Join(root, "exporters", "tflite", "testdata", "mobile_blocks.onnx")},
		{name: "decoder_blocks", path: filepath.Join(root, "exporters", "tflite", "testdata", "decoder_blocks.onnx")},
		{name: "flatten_head", path: filepath.Join(root, "exporters", "tflite", "testdata", "flatten_head.onnx")},
		{name: "norm_blocks", path: filepath.Join(root, "exporters", "tflite", "testdata", "norm_blocks.onnx"), inner: 1, armGaps: true},
		{name: "runtime_gaps", path: filepath.Join(root, "exporters", "tflite", "testdata", "runtime_gaps.onnx"), armGaps: true},
	}
	fix := filepath.Join(testfix.RepoRoot(), "..", "shared", "fixtures", "torch2")
	if _, err := os.Stat(fix); err != nil {
		t.Logf("%s not found: torch2 fixtures skipped", fix)
		return cases
	}
	for _, m := range []string{"mobilenet_v2_035", "shufflenet_v2_x0_5", "squeezenet1_1"} {
		cases = append(cases, tfliteExportCase{name: "torch/" + m, path: filepath.Join(testfix.RepoRoot(), "..", "shared", "fixtures", "torch", m, "model.onnx")})
	}
	for _, f := range []string{"model.onnx", "exported.pt2"} {
		cases = append(cases, tfliteExportCase{name: "torch2/tiny_lstm/" + f, path: filepath.Join(fix, "tiny_lstm", f), armGaps: true})
	}
	shapes := map[string][]int64{"tiny_convnet": {1, 3, 32, 32}, "deconv_net": {1, 3, 16, 32}, "tiny_unet": {1, 3, 16, 16}}
	for _, m := range []string{"tiny_convnet", "deconv_net", "tiny_unet"} {
		cases = append(cases,
			tfliteExportCase{name: "torch2/" + m + "/model.onnx", path: filepath.Join(fix, m, "model.onnx")},
			tfliteExportCase{name: "torch2/" + m + "/exported.pt2", path: filepath.Join(fix, m, "exported.pt2")},
			tfliteExportCase{name: "torch2/" + m + "/traced.pt", path: filepath.Join(fix, m, "traced.pt"), shape: shapes[m]})
	}
	return cases
}

// randomInputs fills g's inputs with seeded values in [-1, 1].
func randomInputs(t *testing.T, g *canon.Graph, seed int64) map[string]*canon.Tensor {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	out := map[string]*canon.Tensor{}
	for _, in := range g.Inputs {
		s, ok := in.StaticShape()
		if !ok || in.DType != canon.Float32 {
			t.Fatalf("input %s: %v %v is not a static float32 input", in.Name, in.DType, in.Shape)
		}
		v := make([]float32, canon.NumElements(s))
		for i := range v {
			v[i] = float32(r.Float64()*2 - 1)
		}
		out[in.Name] = canon.NewFloat32Tensor(in.Name, s, v)
	}
	return out
}

// toLayout permutes a 4-D tensor between NCHW and NHWC; others are kept.
func toLayout(t *testing.T, x *canon.Tensor, from, to canon.Layout) *canon.Tensor {
	t.Helper()
	if len(x.Shape) != 4 {
		return x
	}
	c := *x
	c.Layout = from
	p, err := canon.PermuteTensor(&c, to)
	if err != nil {
		t.Fatal(err)
	}
	p.Layout = ""
	return p
}

// transposeCounts counts a .tflite file's TRANSPOSE ops: those reading a
// graph input or writing a graph output (edges) and the others (inner).
func transposeCounts(t *testing.T, data []byte) (edge, inner int, codes map[string]int) {
	t.Helper()
	m := tflitefb.GetRootAsModel(data, 0)
	if len(data) < 8 || string(data[4:8]) != "TFL3" || m.Version() != 3 {
		t.Fatalf("not a schema-3 TFL3 file")
	}
	var sg tflitefb.SubGraph
	if m.SubgraphsLength() != 1 || !m.Subgraphs(&sg, 0) {
		t.Fatalf("want one subgraph, have %d", m.SubgraphsLength())
	}
	io := map[int32]bool{}
	for i := 0; i < sg.InputsLength(); i++ {
		io[sg.Inputs(i)] = true
	}
	for i := 0; i < sg.OutputsLength(); i++ {
		io[sg.Outputs(i)] = true
	}
	codes = map[string]int{}
	var op tflitefb.Operator
	var oc tflitefb.OperatorCode
	for i := 0; i < sg.OperatorsLength(); i++ {
		sg.Operators(&op, i)
		m.OperatorCodes(&oc, int(op.OpcodeIndex()))
		code := oc.BuiltinCode()
		if code < 127 && int8(code) != oc.DeprecatedBuiltinCode() {
			t.Errorf("operator code %v: deprecated_builtin_code %d", code, oc.DeprecatedBuiltinCode())
		}
		codes[tflitefb.EnumNamesBuiltinOperator[code]]++
		if code != tflitefb.BuiltinOperatorTRANSPOSE {
			continue
		}
		if io[op.Inputs(0)] || io[op.Outputs(0)] {
			edge++
		} else {
			inner++
		}
	}
	return edge, inner, codes
}

// TestTFLiteExportAgainstArmNN exports float models to .tflite with NCHW
// and NHWC inputs and outputs and with float16 weights, and runs every
// file in Arm NN (CpuRef) and, read back, in the interpreter, against the
// interpreter's outputs for the source model. No TRANSPOSE may sit
// between two ops; with NHWC inputs and outputs there is none at all.
func TestTFLiteExportAgainstArmNN(t *testing.T) {
	for _, tc := range tfliteExportCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("%s not found", tc.path)
			}
			opts := formats.ReadOptions{}
			if tc.shape != nil {
				opts.InputShapes = map[string][]int64{"#0": tc.shape}
			}
			g := load(t, tc.path, "", opts)
			feeds := randomInputs(t, g, 7)
			want, err := interp.Run(g, feeds)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []struct {
				name string
				o    tfliteexport.Options
			}{{"nchw", tfliteexport.Options{}}, {"nhwc", tfliteexport.Options{NHWCIO: true}}, {"fp16", tfliteexport.Options{Float16Weights: true}}} {
				data, _, err := tfliteexport.Encode(g, v.o)
				if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				path := filepath.Join(t.TempDir(), "m.tflite")
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				edge, inner, codes := transposeCounts(t, data)
				// Only the model's own transposes (ShuffleNet's channel
				// shuffles) may move data inside the graph.
				if own := countKind(g, "Transpose"); inner > own+tc.inner {
					t.Errorf("%s: %d TRANSPOSE ops inside the graph, the model has %d", v.name, inner, own)
				}
				if v.o.NHWCIO && edge != 0 {
					t.Errorf("%s: %d TRANSPOSE ops at the edges with NHWC inputs and outputs", v.name, edge)
				}
				if v.o.Float16Weights && codes["DEQUANTIZE"] == 0 {
					t.Errorf("%s: no DEQUANTIZE of float16 weights", v.name)
				}
				fileLayout := canon.Layout("NCHW")
				if v.o.NHWCIO {
					fileLayout = "NHWC"
				}
				var ins []*canon.Tensor
				for _, in := range g.Inputs {
					ins = append(ins, toLayout(t, feeds[in.Name], "NCHW", fileLayout))
				}
				// Arm NN 22 takes only constant float32 filters: a float16
				// model runs there as the same numbers in float32 buffers.
				armPath := path
				if v.o.Float16Weights {
					o := v.o
					o.HalfRoundedWeights = true
					same, _, err := tfliteexport.Encode(g, o)
					if err != nil {
						t.Fatal(err)
					}
					armPath = filepath.Join(t.TempDir(), "rounded.tflite")
					if err := os.WriteFile(armPath, same, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				arm, err := runArmNNErr(t, armPath, ins)
				if err != nil && armNNLacks(err) && tc.armGaps {
					t.Logf("%s: %v; checked in the interpreter only", v.name, err)
					arm = nil
				} else if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				if why := armNNDeviates(t, data); why != "" && arm != nil {
					// Everything else is checked in Arm NN on the file with
					// the flag cleared, against that file read back.
					patched := withoutHalfPixel(t, data)
					pp := filepath.Join(t.TempDir(), "patched.tflite")
					if err := os.WriteFile(pp, patched, 0o644); err != nil {
						t.Fatal(err)
					}
					if v.o.Float16Weights {
						o := v.o
						o.HalfRoundedWeights = true
						same, _, err := tfliteexport.Encode(g, o)
						if err != nil {
							t.Fatal(err)
						}
						pa := filepath.Join(t.TempDir(), "patched_rounded.tflite")
						if err := os.WriteFile(pa, withoutHalfPixel(t, same), 0o644); err != nil {
							t.Fatal(err)
						}
						arm = runArmNN(t, pa, ins)
					} else {
						arm = runArmNN(t, pp, ins)
					}
					pg, _, err := formats.Read(pp, "tflite", formats.ReadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					pf := map[string]*canon.Tensor{}
					for i, in := range pg.Inputs {
						x := *ins[i]
						x.Name = in.Name
						pf[in.Name] = &x
					}
					pr, err := interp.Run(pg, pf)
					pg.Close()
					if err != nil {
						t.Fatal(err)
					}
					for i := range pg.Outputs {
						d := maxAbsDiff(t, arm[i], pr[pg.Outputs[i].Name])
						t.Logf("%s: %s; with it cleared, Arm NN and the interpreter differ by %.3g on output %d", v.name, why, d, i)
						if d > 1e-5+1e-4*maxAbs(t, arm[i]) {
							t.Errorf("%s: with half_pixel_centers cleared, Arm NN and the interpreter differ by %g", v.name, d)
						}
					}
					arm = nil
				}
				back, _, err := formats.Read(path, "tflite", formats.ReadOptions{})
				if err != nil {
					t.Fatalf("%s: reading the export back: %v", v.name, err)
				}
				backFeeds := map[string]*canon.Tensor{}
				for i, in := range back.Inputs {
					x := *ins[i]
					x.Name = in.Name
					backFeeds[in.Name] = &x
				}
				mine, err := interp.Run(back, backFeeds)
				back.Close()
				if err != nil {
					t.Fatalf("%s: running the export read back: %v", v.name, err)
				}
				for i, o := range g.Outputs {
					w := want[o.Name]
					r := toLayout(t, mine[back.Outputs[i].Name], fileLayout, "NCHW")
					da, dr := 0.0, maxAbsDiff(t, w, r)
					if arm != nil {
						a := toLayout(t, arm[i], fileLayout, "NCHW")
						da = maxAbsDiff(t, w, a)
						// The float16 file read back and Arm NN on its
						// numbers compute the same model.
						if d := maxAbsDiff(t, a, r); v.o.Float16Weights && d > 1e-5+1e-4*maxAbs(t, w) {
							t.Errorf("%s output %s: Arm NN on the float16 weights and the float16 file read back differ by %g", v.name, o.Name, d)
						}
					}
					scale := maxAbs(t, w)
					tol := 1e-5 + 1e-4*scale
					if v.o.Float16Weights {
						tol = 1e-3 + 2e-2*scale
					}
					armSays := "not run"
					if arm != nil {
						armSays = fmt.Sprintf("%.3g", da)
					}
					t.Logf("%s output %s: Arm NN max abs diff %s, re-read in the interpreter %.3g (max |y| %.3g); TRANSPOSE at the edges %d, inside %d", v.name, o.Name, armSays, dr, scale, edge, inner)
					if da > tol || dr > tol || math.IsNaN(da) || math.IsNaN(dr) {
						t.Errorf("%s output %s: Arm NN differs by %g, the re-read export by %g (tolerance %g)", v.name, o.Name, da, dr, tol)
					}
				}
			}
		})
	}
}

// armNNDeviates says why Arm NN 22 computes a file differently from
// TFLite: its RESIZE_BILINEAR ignores half_pixel_centers (PyTorch's and
// ONNX's default coordinate mode), sampling as if it were unset.
func armNNDeviates(t *testing.T, data []byte) string {
	m := tflitefb.GetRootAsModel(data, 0)
	var sg tflitefb.SubGraph
	m.Subgraphs(&sg, 0)
	var op tflitefb.Operator
	var oc tflitefb.OperatorCode
	for i := 0; i < sg.OperatorsLength(); i++ {
		sg.Operators(&op, i)
		m.OperatorCodes(&oc, int(op.OpcodeIndex()))
		if oc.BuiltinCode() != tflitefb.BuiltinOperatorRESIZE_BILINEAR {
			continue
		}
		var tab flatbuffers.Table
		if op.BuiltinOptions(&tab) {
			var o tflitefb.ResizeBilinearOptions
			o.Init(tab.Bytes, tab.Pos)
			if o.HalfPixelCenters() {
				return "Arm NN 22's RESIZE_BILINEAR ignores half_pixel_centers"
			}
		}
	}
	return ""
}

// withoutHalfPixel returns a copy of a .tflite file with every
// RESIZE_BILINEAR's half_pixel_centers cleared.
func withoutHalfPixel(t *testing.T, data []byte) []byte {
	out := append([]byte{}, data...)
	m := tflitefb.GetRootAsModel(out, 0)
	var sg tflitefb.SubGraph
	m.Subgraphs(&sg, 0)
	var op tflitefb.Operator
	var oc tflitefb.OperatorCode
	for i := 0; i < sg.OperatorsLength(); i++ {
		sg.Operators(&op, i)
		m.OperatorCodes(&oc, int(op.OpcodeIndex()))
		var tab flatbuffers.Table
		if oc.BuiltinCode() == tflitefb.BuiltinOperatorRESIZE_BILINEAR && op.BuiltinOptions(&tab) {
			var o tflitefb.ResizeBilinearOptions
			o.Init(tab.Bytes, tab.Pos)
			if o.HalfPixelCenters() && !o.MutateHalfPixelCenters(false) {
				t.Fatal("cannot clear half_pixel_centers")
			}
		}
	}
	return out
}

// armNNLacks reports whether Arm NN refused an op its parser does not
// read (Arm NN 22 has no PRELU, REDUCE_MAX, SUM, MIRROR_PAD, SQRT, GELU,
// UNIDIRECTIONAL_SEQUENCE_LSTM; BATCH_MATMUL is beyond its op codes).
func armNNLacks(err error) bool {
	msg := err.Error()
	if !strings.Contains(msg, "Operator not supported") {
		return false
	}
	for _, op := range []string{"PRELU", "REDUCE_MAX", "SUM", "MIRROR_PAD", "SQRT", "GELU", "UNIDIRECTIONAL_SEQUENCE_LSTM"} {
		if strings.Contains(msg, op) {
			return true
		}
	}
	return false
}

func maxAbs(t *testing.T, x *canon.Tensor) float64 {
	v, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	m := 0.0
	for _, f := range v {
		m = max(m, math.Abs(f))
	}
	return m
}

// TestTFLiteRoundTripAgainstArmNN reads TensorFlow's float .tflite files,
// writes them back and runs both in Arm NN on the same inputs.
func TestTFLiteRoundTripAgainstArmNN(t *testing.T) {
	for _, name := range []string{"hello_world_float.tflite", "trained_lstm.tflite"} {
		t.Run(name, func(t *testing.T) {
			path := tfliteFixture(t, name)
			g := load(t, path, "", formats.ReadOptions{})
			feeds := randomInputs(t, g, 3)
			var ins []*canon.Tensor
			for _, in := range g.Inputs {
				ins = append(ins, feeds[in.Name])
			}
			data, _, err := tfliteexport.Encode(g, tfliteexport.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, inner, _ := transposeCounts(t, data); inner != 0 {
				t.Errorf("%d TRANSPOSE ops inside the graph", inner)
			}
			out := filepath.Join(t.TempDir(), "m.tflite")
			if err := os.WriteFile(out, data, 0o644); err != nil {
				t.Fatal(err)
			}
			// Arm NN 22 reads no UNIDIRECTIONAL_SEQUENCE_LSTM: the original
			// runs in the interpreter there (checked against TensorFlow's
			// reference by the importer's tests).
			orig, err := runArmNNErr(t, path, ins)
			if err != nil && armNNLacks(err) {
				t.Logf("original: %v; run in the interpreter", err)
				res, err := interp.Run(g, feeds)
				if err != nil {
					t.Fatal(err)
				}
				orig = nil
				for _, o := range g.Outputs {
					orig = append(orig, res[o.Name])
				}
			} else if err != nil {
				t.Fatal(err)
			}
			again := runArmNN(t, out, ins)
			if len(orig) != len(again) {
				t.Fatalf("%d outputs, %d after the round trip", len(orig), len(again))
			}
			for i := range orig {
				d := maxAbsDiff(t, orig[i], again[i])
				t.Logf("output %d: Arm NN on the original and on the round trip differ by %.3g (max |y| %.3g)", i, d, maxAbs(t, orig[i]))
				if d > 1e-5+1e-5*maxAbs(t, orig[i]) {
					t.Errorf("output %d differs by %g after the round trip", i, d)
				}
			}
		})
	}
}
