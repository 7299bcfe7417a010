package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/progress"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
	"github.com/modelbridge/modelbridge/pipeline"
)

// checkReport is the --json schema of `check`. Field names are stable.
type checkReport struct {
	A       string         `json:"a"`
	B       string         `json:"b"`
	Inputs  string         `json:"inputs"`
	Samples int            `json:"samples"`
	RTol    float64        `json:"rtol"`
	ATol    float64        `json:"atol"`
	Outputs []outputReport `json:"outputs"`
	OK      bool           `json:"ok"`
	// RuntimeA and RuntimeB name what ran each model.
	RuntimeA string `json:"runtime_a,omitempty"`
	RuntimeB string `json:"runtime_b,omitempty"`
	// Layers is the per-layer comparison of --layers.
	Layers *compare.LayersReport `json:"layers,omitempty"`
	// Notes say what check assumed (a side whose signature is the other's).
	Notes []string `json:"notes,omitempty"`
	// Error says why the models could not be compared (exit status 2).
	Error string `json:"error,omitempty"`

	// AccumLen is K in the rounding allowance (see compare.Tolerance).
	AccumLen int64 `json:"accumulation_length"`
	// NoRounding (--no-rounding-allowance) drops the rounding term.
	NoRounding bool `json:"no_rounding_allowance,omitempty"`
	// Precision names the precision whose unit roundoff u is, when lower
	// than the outputs' (a model computing in float16).
	Precision string `json:"rounding_precision,omitempty"`
}

type outputReport struct {
	NameA string  `json:"name_a"`
	NameB string  `json:"name_b"`
	Shape []int64 `json:"shape"`
	// Kind describes a sequence or optional output of the reference
	// ("sequence of 3 float32 tensors [2] [2] [2]"); empty for a tensor.
	Kind string `json:"kind,omitempty"`
	compare.Result
}

// notComparable marks a reason the two models cannot be compared.
func notComparable(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), oneLine: true}
}

func newCheckCmd() *cobra.Command {
	var rfA, rfB readFlags
	var inf inputFlags
	var samples int
	var rtol, atol float64
	var asJSON, layers, noRounding bool
	var rt runtimeFlags
	var layerSQNRMin float64
	cmd := &cobra.Command{
		Use:   "check A [B]",
		Short: "Run two models on the same inputs and compare their outputs (or one model with stored outputs)",
		Long: `check runs A and B on the same inputs and reports, per output, the largest
absolute and relative error and the worst element. Inputs and outputs are
matched by name, else by position.

By default both run in modelbridge's reference interpreter, which shows that
the two imports agree. --runtime ort|torch|armnn (or --a-runtime/--b-runtime
per side) runs a model in the framework itself: ONNX Runtime for ONNX files,
PyTorch for TorchScript files, .pt2 programs and the folders convert --to
torch writes (those run in PyTorch by default), Arm NN (its reference CPU
backend, through pyarmnn) for .tflite files.

--layers also compares every intermediate value (matched by name, else by
the graphs' structure, a folded BatchNorm's output with the conv it was
folded into), prints a per-layer table and names the first layer whose
output differs while its inputs agree.

An element passes when |b - a| <= atol + rtol·|a| + 4·u·√K·max|a| (A is the
reference): u is the unit roundoff of the output type (2^-24 for float32)
and K the number of products A sums on the way to its outputs, so
re-associated sums (merged or regrouped convs, another runtime's kernels)
pass. optimize verifies with the same rule.
Sequence and optional outputs are compared in the interpreter: a sequence's
length, then each tensor; an optional's presence, then its value. Their
inputs come from --inputs DIR or --input NAME=FILE (.pb files as ONNX test
data stores them).
With one model and --inputs DIR, the folder's output_0.pb, output_1.pb...
(as in ONNX's test_data_set folders) are the reference A and the model is B.

Exit status: 0 all outputs within tolerance, 1 some are not, 2 the models
cannot be compared (a model cannot be read or run, different inputs or
output shapes, a runtime is missing) or bad usage.`,
		Example: `  modelbridge check testdata/tiny_convnet.onnx /tmp/tiny_convnet.onnx --random --samples 3
  modelbridge check model.onnx converted.onnx --inputs test_data_set_0 --rtol 1e-4 --json
  modelbridge check traced.pt model.onnx --a-runtime torch --b-runtime ort --random
  modelbridge check model.onnx converted.onnx --random --layers
  modelbridge check model.onnx model.tflite --b-runtime armnn --random
  modelbridge check model.onnx --inputs test_data_set_0                # against the folder's output_*.pb`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("check takes 2 models, or 1 model and --inputs DIR with its outputs, got %d argument(s)\nusage: %s", len(args), cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rep := checkReport{A: args[0], RTol: rtol, ATol: atol, Samples: samples, NoRounding: noRounding,
				Inputs: describeInputs(&inf, samples), Outputs: []outputReport{}}
			bar := newBar(cmd, "checking", int64(samples), progress.Count)
			var err error
			if len(args) == 2 {
				rep.B = args[1]
				err = runCheck(&rep, &rfA, &rfB, &inf, &rt, layers, bar)
			} else {
				rep.A, rep.B = storedOutputs(inf.dir), args[0]
				err = runCheckStored(&rep, &rfA, &inf, &rt, layers)
			}
			bar.Finish()
			rep.Layers.MarkSQNRLoss(layerSQNRMin)
			// Only "the outputs differ" is exit status 1: a model that
			// cannot be read or run cannot be compared.
			var ee *exitError
			if err != nil && !errors.As(err, &ee) {
				err = &exitError{code: exitUsage, err: err, oneLine: true}
			}
			if asJSON {
				if err != nil {
					rep.Error = err.Error()
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				enc.Encode(rep)
			} else if err == nil {
				printCheck(cmd.OutOrStdout(), rep)
				if rep.Layers != nil {
					printLayers(cmd.OutOrStdout(), rep.Layers)
				}
			}
			if err != nil {
				return err
			}
			if !rep.OK {
				return &exitError{code: exitFailure, err: fmt.Errorf("outputs differ beyond rtol %g, atol %g", rtol, atol)}
			}
			return nil
		},
	}
	rfA.register(cmd)
	inf.register(cmd)
	cmd.Flags().IntVar(&samples, "samples", 1, "number of random input sets (with --random; seeds seed, seed+1, ...)")
	cmd.Flags().Float64Var(&rtol, "rtol", compare.DefaultRTol, "relative tolerance")
	cmd.Flags().Float64Var(&atol, "atol", compare.DefaultATol, "absolute tolerance")
	cmd.Flags().BoolVar(&noRounding, "no-rounding-allowance", false, "drop the rounding term: elements must pass atol + rtol·|a| alone (with --rtol 0 --atol 0: bitwise equal values)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&rfB.from, "from-b", "", "format of B when it differs from --from")
	cmd.Flags().BoolVar(&layers, "layers", false, "also compare every intermediate value and name the first layer that differs")
	rt.register(cmd)
	registerLayerSQNR(cmd, &layerSQNRMin)
	return cmd
}

func runCheck(rep *checkReport, rfA, rfB *readFlags, inf *inputFlags, rt *runtimeFlags, layers bool, bar *progress.Bar) error {
	if rep.RTol < 0 || rep.ATol < 0 {
		return usageErrorf("--rtol and --atol must not be negative")
	}
	if rep.Samples < 1 {
		return usageErrorf("--samples must be at least 1")
	}
	if rep.Samples > 1 && !inf.random {
		return usageErrorf("--samples needs --random")
	}
	// --params and --key describe A; B gets A's format unless --from-b says
	// otherwise, and the input shapes A was read with (see loadCounterpart).
	rfB.params, rfB.key = "", ""
	if rfB.from == "" {
		rfB.from = rfA.from
	}
	sa, sb := &checkSide{path: rep.A}, &checkSide{path: rep.B}
	var err error
	if sa.runtime, err = rt.side(rt.a); err != nil {
		return err
	}
	if sb.runtime, err = rt.side(rt.b); err != nil {
		return err
	}
	for _, s := range []*checkSide{sa, sb} {
		if err := s.resolveRuntime(); err != nil {
			return err
		}
	}
	ga, gb, err := loadCheckPair(rep, sa, sb, rfA, rfB, inf)
	if err != nil {
		return err
	}
	defer ga.Close()
	defer gb.Close()
	for _, m := range []struct {
		path string
		g    *canon.Graph
	}{{rep.A, ga}, {rep.B, gb}} {
		if err := pipeline.RequireModel(m.path, m.g, false); err != nil {
			return err
		}
	}
	sa.g, sb.g = ga, gb

	inMap, err := matchValues("input", ga.Inputs, gb.Inputs)
	if err != nil {
		return notComparable("%s vs %s: %v", rep.A, rep.B, err)
	}
	for i, a := range ga.Inputs {
		b := gb.Inputs[inMap[i]]
		if a.DType != b.DType && isFloat(a.DType) && isFloat(b.DType) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("input %q: B takes %s, so it is given A's %s inputs rounded to %s", b.Name, b.DType, a.DType, b.DType))
		} else if a.DType != b.DType {
			hint := ""
			if a.DType == canon.Float16 || b.DType == canon.Float16 {
				hint = "; a model converted with --fp16 keeps float32 inputs and outputs with --keep-io-types"
			}
			return notComparable("input %q of A is %s, input %q of B is %s: the dtypes differ%s", a.Name, a.DType, b.Name, b.DType, hint)
		}
		if !compatibleShapes(a, b) {
			return notComparable("input %q of A has shape %s, input %q of B has %s", a.Name, shapeString(describeValue(a).Shape), b.Name, shapeString(describeValue(b).Shape))
		}
	}
	outMap, err := matchValues("output", ga.Outputs, gb.Outputs)
	if err != nil {
		return notComparable("%s vs %s: %v", rep.A, rep.B, err)
	}
	// K of the rounding allowance comes from A's graph; a side only a
	// framework could read (its declared signature) has no nodes to count.
	var accum int64
	if err := ga.Infer(); err == nil {
		accum = compare.AccumulationLength(ga)
	}
	tol := compare.Tolerance{RTol: rep.RTol, ATol: rep.ATol, AccumLen: accum, NoRounding: rep.NoRounding}
	lowerPrecision(rep, &tol, "A", ga)
	lowerPrecision(rep, &tol, "B", gb)
	if !rep.NoRounding {
		rep.AccumLen = tol.AccumLen
	}
	shapes, _ := tensorfile.ParseShapes(rfA.inputShapes)
	// Random inputs for an input A leaves unshaped (a TorchScript archive
	// records no shapes) take the shape B declares for its counterpart.
	for i, a := range ga.Inputs {
		if _, given := shapes[a.Name]; given {
			continue
		}
		if _, ok := a.StaticShape(); ok {
			continue
		}
		if s, ok := gb.Inputs[inMap[i]].StaticShape(); ok {
			shapes[a.Name] = s
		}
	}
	rep.Inputs = describeInputs(inf, rep.Samples)
	if hasNonTensorIO(ga) || hasNonTensorIO(gb) {
		return runCheckValues(rep, sa, sb, inMap, outMap, inf, shapes, tol, layers)
	}
	rep.OK = true
	rep.Outputs = make([]outputReport, len(ga.Outputs))
	// makeSample builds sample s's inputs for A and for B.
	makeSample := func(s int) (inA, inB map[string]*canon.Tensor, err error) {
		inA, err = inf.gather(ga, shapes, inf.seed+uint64(s))
		if err != nil {
			return nil, nil, err
		}
		inB = map[string]*canon.Tensor{}
		for i, a := range ga.Inputs {
			b := gb.Inputs[inMap[i]]
			inB[b.Name] = inA[a.Name]
			if b.DType != a.DType {
				if inB[b.Name], err = castFloats(inA[a.Name], b.DType); err != nil {
					return nil, nil, err
				}
			}
		}
		return inA, inB, nil
	}
	first, firstB, err := makeSample(0)
	if err != nil {
		return err
	}
	if layers {
		if rep.Layers, err = compareLayers(sa, sb, first, firstB, tol); err != nil {
			return err
		}
	}
	// Samples go through both sides a chunk at a time, so that many
	// samples stay within the memory budget. When they all fit, A runs
	// them all and its weights go before B runs: the peak is then one
	// side's weights and activations, not both sides'.
	// Outputs computed from random draws on either side, found before the
	// runs (a side's graph is released once it has run).
	drawnA, drawnB := canon.DrawnOutputs(ga), canon.DrawnOutputs(gb)
	drawn := make([]bool, len(ga.Outputs))
	for i := range drawn {
		drawn[i] = drawnA[i] || drawnB[outMap[i]]
	}
	chunk := samplesPerChunk(first, rep.Samples)
	for start := 0; start < rep.Samples; start += chunk {
		n := min(chunk, rep.Samples-start)
		insA, insB := make([]map[string]*canon.Tensor, n), make([]map[string]*canon.Tensor, n)
		for k := range n {
			if start+k == 0 {
				insA[k], insB[k] = first, firstB
				continue
			}
			if insA[k], insB[k], err = makeSample(start + k); err != nil {
				return err
			}
		}
		outsA, err := sa.run(insA)
		if err != nil {
			return err
		}
		rep.RuntimeA = sa.desc
		if chunk >= rep.Samples {
			if err := releaseWeights(ga); err != nil {
				return err
			}
		}
		outsB, err := sb.run(insB)
		if err != nil {
			return err
		}
		rep.RuntimeB = sb.desc
		for k := range n {
			if err := compareSample(rep, ga, gb, outMap, drawn, tol, start+k, outsA[k], outsB[k]); err != nil {
				return err
			}
			bar.Set(int64(start + k + 1))
		}
	}
	return nil
}

// samplesPerChunk is how many samples like first (inputs, and as much
// again for outputs and their copies) a quarter of the memory budget
// holds: all of them when they fit.
func samplesPerChunk(first map[string]*canon.Tensor, samples int) int {
	var per int64
	for _, t := range first {
		per += t.ByteSize()
	}
	per = 4 * max(per, 1)
	n := interp.MemoryLimit() / 4 / per
	return int(max(1, min(n, int64(samples))))
}

// compareSample folds sample s's outputs into the report.
func compareSample(rep *checkReport, ga, gb *canon.Graph, outMap []int, drawn []bool, tol compare.Tolerance, s int, outA, outB map[string]*canon.Tensor) error {
	for i, a := range ga.Outputs {
		nameB := gb.Outputs[outMap[i]].Name
		ta, tb := outA[a.Name], outB[nameB]
		if ta == nil || tb == nil {
			return fmt.Errorf("output %q was not produced", a.Name)
		}
		res, err := tol.Check(tb, ta)
		if drawn[i] {
			// Random draws: each runtime samples its own values.
			res, err = compare.Drawn(tb, ta)
		}
		if err != nil {
			return notComparable("output %q of A and %q of B: %v", a.Name, nameB, err)
		}
		mergeOutput(rep, i, s, a.Name, nameB, ta, res)
	}
	return nil
}

func describeInputs(inf *inputFlags, samples int) string {
	switch {
	case inf.random:
		return fmt.Sprintf("random, seed %d, %d sample(s)", inf.seed, samples)
	case inf.dir != "":
		return inf.dir
	}
	return strings.Join(inf.files, " ")
}

// matchValues pairs A's values with B's: by name when B has every name of
// A, else by position when the counts agree.
func matchValues(what string, a, b []canon.ValueInfo) ([]int, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("A has %d %ss (%s), B has %d (%s); check compares models with the same %ss", len(a), what, names(a), len(b), names(b), what)
	}
	idx := map[string]int{}
	for i, v := range b {
		idx[v.Name] = i
	}
	out := make([]int, len(a))
	byName := true
	for i, v := range a {
		j, ok := idx[v.Name]
		if !ok {
			byName = false
			break
		}
		out[i] = j
	}
	if !byName {
		for i := range out {
			out[i] = i
		}
	}
	return out, nil
}

func names(vs []canon.ValueInfo) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Name)
	}
	return strings.Join(s, ", ")
}

// compatibleShapes is false only when both shapes are known and differ.
func isFloat(d canon.DType) bool { return compare.Roundoff(d) > 0 }

// castFloats rounds a float tensor to another float dtype with the
// interpreter's own Cast, so that the rounding is the one every Cast node
// gets.
func castFloats(t *canon.Tensor, to canon.DType) (*canon.Tensor, error) {
	g := &canon.Graph{
		Inputs:  []canon.ValueInfo{{Name: "x", DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true}},
		Nodes:   []*canon.Node{{Name: "cast", Op: &canon.Cast{To: to}, Inputs: []string{"x"}, Outputs: []string{"y"}}},
		Outputs: []canon.ValueInfo{{Name: "y"}},
	}
	outs, err := interp.Run(g, map[string]*canon.Tensor{"x": t})
	if err != nil {
		return nil, fmt.Errorf("input %q: rounding to %s: %w", t.Name, to, err)
	}
	y := outs["y"]
	y.Name = t.Name
	return y, nil
}

func compatibleShapes(a, b canon.ValueInfo) bool {
	if !a.RankKnown || !b.RankKnown {
		return true
	}
	if len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i].Known() && b.Shape[i].Known() && a.Shape[i].Size != b.Shape[i].Size {
			return false
		}
	}
	return a.DType == b.DType || (isFloat(a.DType) && isFloat(b.DType))
}

func printCheck(w io.Writer, r checkReport) {
	fmt.Fprintf(w, "A: %s\nB: %s\ninputs: %s\ntolerance: |b-a| <= %g + %g*|a|%s\n", r.A, r.B, r.Inputs, r.ATol, r.RTol, roundingTerm(r))
	printRuntimes(w, r)
	for _, o := range r.Outputs {
		status := "ok"
		if !o.OK {
			status = fmt.Sprintf("DIFFERS (%d of %d elements)", o.Mismatched, o.Elements)
		}
		name := o.NameA
		if o.NameB != o.NameA {
			name += " / " + o.NameB
		}
		if o.Kind != "" {
			printValueOutput(w, name, o, status)
			continue
		}
		if d := o.Drawn; d != nil {
			fmt.Fprintf(w, "%-28s %v  random draws: compared by shape, dtype and range (a in [%.4g, %.4g], b in [%.4g, %.4g])  %s\n",
				name, o.Shape, d.WantMin, d.WantMax, d.GotMin, d.GotMax, status)
			continue
		}
		if t := o.Text; t != nil {
			if o.OK {
				fmt.Fprintf(w, "%-28s %v  strings: every element equal byte for byte  %s\n", name, o.Shape, status)
			} else {
				fmt.Fprintf(w, "%-28s %v  strings: first difference at %v (a=%q b=%q)  %s\n", name, o.Shape, o.Worst, t.WantFirst, t.GotFirst, status)
			}
			continue
		}
		fmt.Fprintf(w, "%-28s %v  max abs %.3g  max rel %.3g  worst at %v (a=%.7g b=%.7g)  %s\n",
			name, o.Shape, o.MaxAbs, o.MaxRel, o.Worst, o.WorstWant, o.WorstGot, status)
	}
}

// loadCounterpart reads B. --input-shape names A's inputs, and B may name
// its inputs differently (a traced.pt calls its input "x" where the ONNX
// export says "input"), so when B does not take A's names, B's inputs get
// A's static shapes by position.
func loadCounterpart(path string, rf *readFlags, ga *canon.Graph) (*canon.Graph, error) {
	g, _, firstErr := rf.load(path)
	if firstErr == nil && sameInputDTypes(g, ga) {
		return g, nil
	}
	var specs []string
	for i, in := range ga.Inputs {
		shape, ok := in.StaticShape()
		if !ok {
			return g, firstErr
		}
		dims := make([]string, len(shape))
		for j, d := range shape {
			dims[j] = fmt.Sprint(d)
		}
		specs = append(specs, fmt.Sprintf("#%d=%s:%s", i, in.DType, strings.Join(dims, ",")))
	}
	positional := *rf
	positional.inputShapes, positional.inputTypes = specs, nil
	g2, _, err := positional.load(path)
	if err != nil {
		// B records input types of its own that differ from A's: keep B
		// as read, and the run reports the difference.
		return g, firstErr
	}
	if g != nil {
		g.Close()
	}
	return g2, nil
}

// sameInputDTypes reports whether b's inputs have a's element types, by
// position: B read from a format that does not record them (TorchScript)
// takes A's.
func sameInputDTypes(b, a *canon.Graph) bool {
	if len(a.Inputs) != len(b.Inputs) {
		return true // a different signature; the run reports it
	}
	for i := range a.Inputs {
		if a.Inputs[i].DType != b.Inputs[i].DType {
			return false
		}
	}
	return true
}

// roundingTerm prints the rounding allowance of compare.Tolerance.
func roundingTerm(r checkReport) string {
	if r.NoRounding {
		return ""
	}
	term := fmt.Sprintf(" + 4*u*sqrt(%d)*max|a| (rounding of %d accumulated products", max(r.AccumLen, 1), r.AccumLen)
	if r.Precision != "" {
		return term + "; u of " + r.Precision + ")"
	}
	return term + ")"
}

// lowerPrecision makes the rounding term use the unit roundoff of the
// precision side computes in when that is below float32's and below what
// tol already uses (a float16 model with float32 inputs and outputs rounds
// at float16), and says so in the report.
func lowerPrecision(rep *checkReport, tol *compare.Tolerance, side string, g *canon.Graph) {
	if g.Infer() != nil {
		return
	}
	if p := compare.LowestPrecision(g); compare.Roundoff(p) > compare.Roundoff(tol.Precision) && compare.Roundoff(p) > compare.Roundoff(canon.Float32) {
		tol.Precision = p
		rep.Precision = fmt.Sprintf("%s (%s computes in it)", p, side)
	}
}
