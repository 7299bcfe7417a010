package e2e

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// atenTol is the largest error allowed, relative to the largest magnitude
// of PyTorch's output.
const atenTol = 1e-4

// atenVerdict orders a case's outcomes from best to worst, so that an op's
// verdict is the worst of its cases'.
type atenVerdict int

const (
	atenPass atenVerdict = iota
	// atenRefusedDType: the importer read the archive but types an input
	// otherwise than the case feeds it (a TorchScript archive records no
	// input dtypes; the reader is told only shapes).
	atenRefusedDType
	atenRefused
	atenWrong
	atenPanic
	// atenNotTraced: no standalone traced module exercises the op.
	atenNotTraced
)

func (v atenVerdict) String() string {
	return [...]string{"passed", "refused: input dtype", "refused", "WRONG", "PANIC", "not traceable alone"}[v]
}

// atenInput is one recorded input: dtype and shape.
type atenInput struct {
	dtype canon.DType
	shape []int64
}

// parseAtenInputs reads "f32[2,3];i64[4]" ("" for none).
func parseAtenInputs(s string) ([]atenInput, error) {
	var ins []atenInput
	for _, spec := range strings.Split(s, ";") {
		if spec == "" {
			continue
		}
		name, dims, ok := strings.Cut(strings.TrimSuffix(spec, "]"), "[")
		if !ok {
			return nil, fmt.Errorf("input %q: want dtype[d0,d1,...]", spec)
		}
		d, err := canon.ParseDType(name)
		if err != nil {
			return nil, fmt.Errorf("input %q: %v", spec, err)
		}
		in := atenInput{dtype: d, shape: []int64{}}
		for _, x := range strings.Split(dims, ",") {
			if x == "" {
				continue
			}
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("input %q: %v", spec, err)
			}
			in.shape = append(in.shape, n)
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// atenCase is one traced module of the registry table.
type atenCase struct {
	op, name, mode, kinds, note, dir string
	inputs                           []atenInput
}

// atenOutcome is a case's verdict and why.
type atenOutcome struct {
	verdict  atenVerdict
	reason   string
	caseName string
}

// atenReadOptions gives the reader the inputs' shapes, and their dtypes
// when ReadOptions has the InputDTypes field (map[string]canon.DType, keyed
// like InputShapes); without it the importer types every input f32 and
// the cases that feed integers or bools are counted apart.
func atenReadOptions(shapes map[string][]int64, dtypes map[string]canon.DType) formats.ReadOptions {
	opts := formats.ReadOptions{InputShapes: shapes}
	f := reflect.ValueOf(&opts).Elem().FieldByName("InputDTypes")
	if f.IsValid() && f.Type() == reflect.TypeOf(dtypes) {
		f.Set(reflect.ValueOf(dtypes))
	}
	return opts
}

// atenReaderTakesDTypes tells whether ReadOptions has InputDTypes.
var atenReaderTakesDTypes = func() bool {
	_, ok := reflect.TypeOf(formats.ReadOptions{}).FieldByName("InputDTypes")
	return ok
}()

// feedsNonFloat tells whether an input is an integer or bool tensor.
func (c *atenCase) feedsNonFloat() bool {
	for _, in := range c.inputs {
		if !in.dtype.IsFloat() {
			return true
		}
	}
	return false
}

// check reads, runs and compares one case; a panic anywhere is an outcome.
func (c *atenCase) check() (out atenOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out = atenOutcome{verdict: atenPanic, reason: fmt.Sprint(r)}
		}
	}()
	data := filepath.Join(c.dir, "test_data_set_0")
	shapes := map[string][]int64{}
	dtypes := map[string]canon.DType{}
	feeds := make([]*canon.Tensor, len(c.inputs))
	for i, in := range c.inputs {
		x, err := tensorfile.Load(filepath.Join(data, fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			return atenOutcome{verdict: atenRefused, reason: "case files: " + err.Error()}
		}
		if x.DType != in.dtype || !slices.Equal(x.Shape, in.shape) {
			return atenOutcome{verdict: atenRefused, reason: fmt.Sprintf("case files: input %d is %s%v, INDEX.tsv says %s%v", i, x.DType, x.Shape, in.dtype, in.shape)}
		}
		shapes[fmt.Sprintf("#%d", i)] = in.shape
		dtypes[fmt.Sprintf("#%d", i)] = in.dtype
		feeds[i] = x
	}
	archive := filepath.Join(c.dir, "traced.pt")
	if _, err := os.Stat(filepath.Join(c.dir, "scripted.pt")); err == nil {
		archive = filepath.Join(c.dir, "scripted.pt") // a scripting statement tracing never records
	}
	g, _, err := formats.Read(archive, "", atenReadOptions(shapes, dtypes))
	if err != nil {
		// The importer types every input f32 (the archive records no
		// dtypes); a refusal that names f32 where the case feeds an
		// integer or bool tensor is that, not the op.
		if c.feedsNonFloat() && strings.Contains(err.Error(), "f32") {
			return atenOutcome{verdict: atenRefusedDType, reason: err.Error()}
		}
		return atenOutcome{verdict: atenRefused, reason: err.Error()}
	}
	defer g.Close()
	if len(g.Inputs) != len(feeds) {
		return atenOutcome{verdict: atenWrong, reason: fmt.Sprintf("the graph has %d inputs, forward takes %d", len(g.Inputs), len(feeds))}
	}
	feed := map[string]*canon.Tensor{}
	for i, in := range g.Inputs {
		if in.DType != feeds[i].DType {
			return atenOutcome{verdict: atenRefusedDType, reason: fmt.Sprintf("the importer reads an input as %s; the case feeds %s", in.DType, feeds[i].DType)}
		}
		x := *feeds[i]
		x.Name = in.Name
		feed[in.Name] = &x
	}
	outs, err := interp.Run(g, feed)
	if err != nil {
		return atenOutcome{verdict: atenRefused, reason: "run: " + err.Error()}
	}
	for i, o := range g.Outputs {
		want, err := tensorfile.Load(filepath.Join(data, fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			return atenOutcome{verdict: atenWrong, reason: fmt.Sprintf("the graph has %d outputs, PyTorch gives fewer: %v", len(g.Outputs), err)}
		}
		if err := atenCompare(outs[o.Name], want, c.mode); err != nil {
			return atenOutcome{verdict: atenWrong, reason: fmt.Sprintf("output %d: %v", i, err)}
		}
	}
	if more, _ := filepath.Glob(filepath.Join(data, fmt.Sprintf("output_%d.pb", len(g.Outputs)))); len(more) > 0 {
		return atenOutcome{verdict: atenWrong, reason: fmt.Sprintf("the graph has %d outputs, PyTorch gives more", len(g.Outputs))}
	}
	return atenOutcome{verdict: atenPass, reason: ""}
}

// atenCompare checks got against PyTorch's want as the case's check says:
// "values", "shape" (undefined values) or "range:LO:HI" (random samples).
func atenCompare(got, want *canon.Tensor, check string) error {
	if got == nil {
		return errors.New("not computed")
	}
	if got.DType != want.DType {
		return fmt.Errorf("dtype %s, PyTorch gives %s", got.DType, want.DType)
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, PyTorch gives %v", got.Shape, want.Shape)
	}
	switch {
	case check == "shape":
		return nil
	case strings.HasPrefix(check, "range:"):
		return atenInRange(got, check)
	case check != "values":
		return fmt.Errorf("INDEX.tsv: unknown check %q", check)
	}
	if got.DType.IsInt() || got.DType == canon.Bool {
		a, err := got.Int64s()
		if err != nil {
			return err
		}
		b, err := want.Int64s()
		if err != nil {
			return err
		}
		for i := range a {
			if a[i] != b[i] {
				return fmt.Errorf("element %d is %d, PyTorch gives %d", i, a[i], b[i])
			}
		}
		return nil
	}
	a, err := got.Float64s()
	if err != nil {
		return err
	}
	b, err := want.Float64s()
	if err != nil {
		return err
	}
	var scale float64
	for _, y := range b {
		if !math.IsInf(y, 0) && !math.IsNaN(y) {
			scale = math.Max(scale, math.Abs(y))
		}
	}
	if scale == 0 {
		scale = 1
	}
	worst, at := 0.0, -1
	for i := range a {
		x, y := a[i], b[i]
		if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsInf(x, 0) {
			if x == y || (math.IsNaN(x) && math.IsNaN(y)) {
				continue
			}
			return fmt.Errorf("element %d is %v, PyTorch gives %v", i, x, y)
		}
		if d := math.Abs(x-y) / scale; d > worst {
			worst, at = d, i
		}
	}
	if worst > atenTol {
		return fmt.Errorf("relative error %.3g at element %d (%v, PyTorch gives %v)", worst, at, a[at], b[at])
	}
	return nil
}

// atenInRange checks every sample lies in [LO, HI] of "range:LO:HI".
func atenInRange(got *canon.Tensor, check string) error {
	f := strings.Split(check, ":")
	if len(f) != 3 {
		return fmt.Errorf("INDEX.tsv: check %q is not range:LO:HI", check)
	}
	lo, err1 := strconv.ParseFloat(f[1], 64)
	hi, err2 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("INDEX.tsv: check %q is not range:LO:HI", check)
	}
	v, err := got.Float64s()
	if err != nil {
		return err
	}
	for i, x := range v {
		if math.IsNaN(x) || x < lo || x > hi {
			return fmt.Errorf("sample %d is %v, outside [%v, %v]", i, x, lo, hi)
		}
	}
	return nil
}

var (
	// atenSourcePos is a TorchScript source position in an error.
	atenSourcePos = regexp.MustCompile(`^.*?\.py:\d+(:\d+)?: `)
	// atenArchivePath is the case file's path leading an error.
	atenArchivePath = regexp.MustCompile(`^\S*traced\.pt: `)
	// atenUnsupported is the importer's refusal of an operator it lacks.
	atenUnsupported = regexp.MustCompile(`operator (?:torch\.|ops\.\w+\.)?(\S+) is not supported by the TorchScript importer`)
	atenNumbers     = regexp.MustCompile(`\b\d+\b`)
	// atenDTypeNode is the node a dtype refusal names (it differs per case).
	atenDTypeNode = regexp.MustCompile(`^node "[^"]*" `)
)

// atenReasonGroup shortens a refusal to what groups ops: the first line,
// without the file and source position, numbers replaced by N.
func atenReasonGroup(reason string) string {
	s := strings.SplitN(reason, "\n", 2)[0]
	s = atenArchivePath.ReplaceAllString(s, "")
	s = atenSourcePos.ReplaceAllString(s, "")
	if atenUnsupported.MatchString(s) {
		return "no handler in the TorchScript importer"
	}
	s = atenDTypeNode.ReplaceAllString(s, "")
	s = strings.TrimSuffix(s, " (`modelbridge ops` lists what each format supports)")
	s = strings.TrimSuffix(s, " (`modelbridge ops --aten` lists PyTorch's operators and the handlers this importer has)")
	s = atenNumbers.ReplaceAllString(s, "N")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
