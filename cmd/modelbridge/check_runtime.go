package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/interp"
)

// runtimeFlags choose what runs each side of `check`.
type runtimeFlags struct {
	both, a, b string
}

func (f *runtimeFlags) register(cmd *cobra.Command) {
	names := strings.Join(runtimes.Names, "|")
	cmd.Flags().StringVar(&f.both, "runtime", "", "what runs both models: "+names+" (default interp; a --to torch folder runs in torch)")
	cmd.Flags().StringVar(&f.a, "a-runtime", "", "what runs A ("+names+"; overrides --runtime)")
	cmd.Flags().StringVar(&f.b, "b-runtime", "", "what runs B ("+names+"; overrides --runtime)")
	for _, name := range []string{"runtime", "a-runtime", "b-runtime"} {
		cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return runtimes.Names, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// side returns the runtime chosen for one side, or "" for the default.
func (f *runtimeFlags) side(perSide string) (string, error) {
	rt := perSide
	if rt == "" {
		rt = f.both
	}
	if rt != "" && !slices.Contains(runtimes.Names, rt) {
		return "", usageErrorf("unknown runtime %q: use one of %s", rt, strings.Join(runtimes.Names, ", "))
	}
	return rt, nil
}

// checkSide is one model of `check` and what runs it.
type checkSide struct {
	path    string
	runtime string
	g       *canon.Graph
	// desc names the runtime that ran the model, for the report.
	desc string
}

// resolveRuntime picks the default runtime (interp; torch for a --to torch
// folder, which only PyTorch reads) and refuses pairs that cannot work.
func (s *checkSide) resolveRuntime() error {
	folder := runtimes.IsTorchFolder(s.path)
	switch {
	case s.runtime == "" && folder:
		s.runtime = runtimes.Torch
	case s.runtime == "":
		s.runtime = runtimes.Interp
	case folder && s.runtime != runtimes.Torch:
		return usageErrorf("%s is a `convert --to torch` folder (model.py + weights.pt): only PyTorch runs it; use --runtime torch for it", s.path)
	}
	if s.runtime == runtimes.Torch && runtimes.TorchKind(s.path) == "" {
		return usageErrorf("%s: PyTorch runs TorchScript files (.pt), torch.export programs (.pt2) and `convert --to torch` folders, not this file; choose --runtime interp or ort for it", s.path)
	}
	return nil
}

// loadTorchFolder reads the signature of a `--to torch` folder from the
// README that `convert` wrote beside model.py: inputs and outputs with
// their dtypes and shapes.
func loadTorchFolder(dir string) (*canon.Graph, error) {
	text, err := os.ReadFile(filepath.Join(dir, "README"))
	if err != nil {
		return nil, notComparable("%s: the folder's README (written by convert --to torch) is needed for its inputs and outputs: %v", dir, err)
	}
	g := &canon.Graph{Name: filepath.Base(dir), Meta: canon.Metadata{SourceFormat: "torch"}}
	for _, line := range strings.Split(string(text), "\n") {
		key, rest, ok := strings.Cut(line, ":")
		if !ok || (key != "Inputs" && key != "Outputs") {
			continue
		}
		vals, err := parseSignature(rest)
		if err != nil {
			return nil, notComparable("%s/README: %s line: %v", dir, key, err)
		}
		if key == "Inputs" {
			g.Inputs = vals
		} else {
			g.Outputs = vals
		}
	}
	if len(g.Outputs) == 0 {
		return nil, notComparable("%s/README lists no outputs; rewrite the folder with modelbridge convert --to torch", dir)
	}
	return g, nil
}

// parseSignature reads "x float32[1, 3, ?, s0], y int64[4]".
func parseSignature(s string) ([]canon.ValueInfo, error) {
	var out []canon.ValueInfo
	s = strings.TrimSpace(s)
	for s != "" {
		open := strings.IndexByte(s, '[')
		end := strings.IndexByte(s, ']')
		if open < 0 || end < open {
			return nil, fmt.Errorf("cannot read %q", s)
		}
		name, dt, ok := strings.Cut(strings.TrimSpace(s[:open]), " ")
		if !ok {
			return nil, fmt.Errorf("cannot read %q", s[:open])
		}
		dtype, err := canon.ParseDType(strings.TrimSpace(dt))
		if err != nil {
			return nil, err
		}
		v := canon.ValueInfo{Name: name, DType: dtype, RankKnown: true, Shape: []canon.Dim{}}
		if dims := strings.TrimSpace(s[open+1 : end]); dims != "" {
			for _, d := range strings.Split(dims, ",") {
				d = strings.TrimSpace(d)
				var n int64
				if _, err := fmt.Sscan(d, &n); err == nil {
					v.Shape = append(v.Shape, canon.Dim{Size: n})
				} else if d == "?" {
					v.Shape = append(v.Shape, canon.Dim{Size: -1})
				} else {
					v.Shape = append(v.Shape, canon.Dim{Size: -1, Param: d})
				}
			}
		}
		out = append(out, v)
		s = strings.TrimPrefix(strings.TrimSpace(s[end+1:]), ",")
		s = strings.TrimSpace(s)
	}
	return out, nil
}

// run computes the side's outputs for every sample, keyed by the graph's
// output names.
func (s *checkSide) run(samples []map[string]*canon.Tensor) ([]map[string]*canon.Tensor, error) {
	if s.runtime == runtimes.Interp {
		s.desc = "modelbridge interpreter"
		p, err := interp.New(s.g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		var outs []map[string]*canon.Tensor
		for _, in := range samples {
			o, err := p.Run(in)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.path, err)
			}
			outs = append(outs, o)
		}
		return outs, nil
	}
	var ordered []runtimes.Sample
	for _, in := range samples {
		var smp runtimes.Sample
		for _, v := range s.g.Inputs {
			smp = append(smp, in[v.Name])
		}
		ordered = append(ordered, smp)
	}
	var res *runtimes.Result
	var err error
	switch s.runtime {
	case runtimes.ORT:
		if !runtimes.RunsFilesOf(s.runtime, s.g.Meta.SourceFormat) {
			return nil, usageErrorf("%s is a %s model: ONNX Runtime runs ONNX files; convert it first or choose --runtime interp or torch for it", s.path, s.g.Meta.SourceFormat)
		}
		res, err = runtimes.RunORT(s.path, ordered)
	case runtimes.Torch:
		res, err = runtimes.RunTorch(s.path, ordered)
	case runtimes.ArmNN:
		if !runtimes.RunsFilesOf(s.runtime, s.g.Meta.SourceFormat) {
			return nil, usageErrorf("%s is a %s model: Arm NN runs .tflite files; convert it first or choose --runtime interp for it", s.path, s.g.Meta.SourceFormat)
		}
		res, err = runtimes.RunArmNN(s.path, ordered)
	}
	if err != nil {
		return nil, err
	}
	s.desc = res.Runtime
	var outs []map[string]*canon.Tensor
	for _, got := range res.Outputs {
		if len(got) != len(s.g.Outputs) {
			return nil, notComparable("%s: %s returned %d outputs, the model declares %d (%s)", s.path, res.Runtime, len(got), len(s.g.Outputs), names(s.g.Outputs))
		}
		m := map[string]*canon.Tensor{}
		for i, v := range s.g.Outputs {
			t := got[i]
			// ONNX Runtime names its outputs: take them by name when it does.
			if len(res.Names) == len(got) {
				if j := slices.Index(res.Names, v.Name); j >= 0 {
					t = got[j]
				}
			}
			m[v.Name] = t
		}
		outs = append(outs, m)
	}
	return outs, nil
}

// loadCheckPair reads A and B. A side that a framework runs needs
// modelbridge's import only for its inputs and outputs, so when modelbridge
// cannot import it (an op it lacks, sizes it cannot infer), an ONNX file
// run by ONNX Runtime takes the inputs and outputs the file declares, and a
// model run by PyTorch takes the other side's, by position; the report
// says so.
func loadCheckPair(rep *checkReport, sa, sb *checkSide, rfA, rfB *readFlags, inf *inputFlags) (ga, gb *canon.Graph, err error) {
	var errA, errB error
	if runtimes.IsTorchFolder(rep.A) {
		ga, errA = loadTorchFolder(rep.A)
	} else {
		ga, errA = inf.loadModel(rfA, rep.A)
	}
	if errA != nil {
		ga = declaredSignature(rep, "A", sa, errA)
		if ga == nil && sa.runtime != runtimes.Torch {
			return nil, nil, errA
		}
	}
	rfB.inputShapes, rfB.inputTypes, rfB.ignoreCRC = rfA.inputShapes, rfA.inputTypes, rfA.ignoreCRC
	switch {
	case runtimes.IsTorchFolder(rep.B):
		gb, errB = loadTorchFolder(rep.B)
	case ga != nil:
		gb, errB = loadCounterpart(rep.B, rfB, ga)
	default:
		gb, _, errB = rfB.load(rep.B)
	}
	if errB != nil {
		gb = declaredSignature(rep, "B", sb, errB)
	}
	if g, retyped := retypeLikeCounterpart(rep.A, rfA, ga, gb); retyped {
		ga.Close()
		ga = g
		rep.Notes = append(rep.Notes, "A's file does not record its input types: A is read with B's")
	}
	switch {
	case gb == nil && (sb.runtime != runtimes.Torch || ga == nil):
		if ga != nil {
			ga.Close()
		}
		if errA != nil {
			return nil, nil, errA
		}
		return nil, nil, errB
	case gb == nil:
		gb = signatureOf(ga)
		rep.Notes = append(rep.Notes, fmt.Sprintf("modelbridge cannot import B (%v); PyTorch runs it with A's inputs and outputs, by position", errB))
	case ga == nil:
		ga = signatureOf(gb)
		rep.Notes = append(rep.Notes, fmt.Sprintf("modelbridge cannot import A (%v); PyTorch runs it with B's inputs and outputs, by position", errA))
	}
	return ga, gb, nil
}

// declaredSignature is, for an ONNX file run by ONNX Runtime that
// modelbridge cannot import, a graph of the inputs and outputs the file
// declares; nil otherwise.
func declaredSignature(rep *checkReport, which string, s *checkSide, importErr error) *canon.Graph {
	if s.runtime != runtimes.ORT {
		return nil
	}
	ins, outs, err := runtimes.ONNXSignature(s.path)
	if err != nil {
		return nil
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("modelbridge cannot import %s (%v); ONNX Runtime runs it with the inputs and outputs it declares", which, importErr))
	return &canon.Graph{Name: filepath.Base(s.path), Inputs: ins, Outputs: outs, Meta: canon.Metadata{SourceFormat: "onnx"}}
}

// signatureOf is a graph with g's inputs and outputs and no nodes: what a
// side run by PyTorch needs when modelbridge cannot import it.
func signatureOf(g *canon.Graph) *canon.Graph {
	return &canon.Graph{Name: g.Name, Inputs: slices.Clone(g.Inputs), Outputs: slices.Clone(g.Outputs), Meta: canon.Metadata{SourceFormat: "torch"}}
}

// printRuntimes says what ran each model and what check assumed.
func printRuntimes(w io.Writer, r checkReport) {
	fmt.Fprintf(w, "A run by: %s\nB run by: %s\n", r.RuntimeA, r.RuntimeB)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
