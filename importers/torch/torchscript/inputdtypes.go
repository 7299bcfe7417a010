package torchscript

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// A TorchScript archive does not record the element types of forward's
// inputs. An input the user gave no type for is read as float32 first;
// every operator call notes which inputs it takes where PyTorch requires
// integers or booleans (the indices of gather, the mask of masked_fill,
// the operands of a shift), and when a note asks for another type the
// archive is read again with it. Only requirements PyTorch states exactly
// decide a type; an input that could be either (the operands of & are bool
// or integer) is refused by name with the flag that settles it.

// dtypeWant is what one use of an input requires.
type dtypeWant uint8

const (
	// wantInt: integer positions or counts. PyTorch's integer type is
	// int64; where an operator also takes int32 the input is still read
	// as int64 (the note says so) and --input-type gives the other.
	wantInt dtypeWant = iota + 1
	// wantBool: a mask that PyTorch requires to be bool.
	wantBool
	// wantBoolOrInt: bool or integer, undecided by this use.
	wantBoolOrInt
)

// inputUse is one use of a graph input that constrains its type.
type inputUse struct {
	input string
	want  dtypeWant
	what  string // "the index of torch.gather"
	file  string
	line  int
}

func (u inputUse) where() string {
	return fmt.Sprintf("%s at %s:%d", u.what, u.file, u.line)
}

// argUse says that argument pos (or keyword kw) of an operator is a tensor
// of the given want; list marks a list of optional tensors (torch.index).
type argUse struct {
	pos  int
	kw   string
	want dtypeWant
	role string
	list bool
	// classesOf, when set, makes the use count only for a tensor of one
	// axis less than argument classesOf-1: cross_entropy's target holds
	// class indices then, and probabilities when it has the input's shape.
	classesOf int
}

// opInputUses lists the operator arguments that PyTorch requires to be
// integer or bool tensors.
var opInputUses = map[string][]argUse{
	"torch.gather":                 {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter":                {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter_":               {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter_add":            {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter_add_":           {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter_reduce":         {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.scatter_reduce_":        {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_select":           {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_add":              {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_add_":             {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_copy":             {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_copy_":            {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_fill":             {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.index_fill_":            {{pos: 2, kw: "index", want: wantInt, role: "index"}},
	"torch.take":                   {{pos: 1, kw: "index", want: wantInt, role: "index"}},
	"torch.take_along_dim":         {{pos: 1, kw: "indices", want: wantInt, role: "indices"}},
	"torch.embedding":              {{pos: 1, kw: "indices", want: wantInt, role: "indices"}},
	"torch.embedding_bag":          {{pos: 1, kw: "indices", want: wantInt, role: "indices"}, {pos: 2, kw: "offsets", want: wantInt, role: "offsets"}},
	"torch.one_hot":                {{pos: 0, kw: "self", want: wantInt, role: "class indices"}},
	"torch.bincount":               {{pos: 0, kw: "self", want: wantInt, role: "values"}},
	"torch.max_unpool1d":           {{pos: 1, kw: "indices", want: wantInt, role: "indices"}},
	"torch.max_unpool2d":           {{pos: 1, kw: "indices", want: wantInt, role: "indices"}},
	"torch.max_unpool3d":           {{pos: 1, kw: "indices", want: wantInt, role: "indices"}},
	"torch.nll_loss":               {{pos: 1, kw: "target", want: wantInt, role: "target"}},
	"torch.nll_loss_nd":            {{pos: 1, kw: "target", want: wantInt, role: "target"}},
	"torch.nll_loss2d":             {{pos: 1, kw: "target", want: wantInt, role: "target"}},
	"torch.multi_margin_loss":      {{pos: 1, kw: "target", want: wantInt, role: "target"}},
	"torch.multilabel_margin_loss": {{pos: 1, kw: "target", want: wantInt, role: "target"}},
	"torch.cross_entropy_loss":     {{pos: 1, kw: "target", want: wantInt, role: "class index target", classesOf: 1}},
	"torch.masked_fill":            {{pos: 1, kw: "mask", want: wantBool, role: "mask"}},
	"torch.masked_fill_":           {{pos: 1, kw: "mask", want: wantBool, role: "mask"}},
	"torch.masked_select":          {{pos: 1, kw: "mask", want: wantBool, role: "mask"}},
	"torch.masked_scatter":         {{pos: 1, kw: "mask", want: wantBool, role: "mask"}},
	"torch.masked_scatter_":        {{pos: 1, kw: "mask", want: wantBool, role: "mask"}},
	"torch.where":                  {{pos: 0, kw: "condition", want: wantBool, role: "condition"}},
	"torch.index":                  {{pos: 1, kw: "indices", want: wantBoolOrInt, role: "index", list: true}},
	"torch.index_put":              {{pos: 1, kw: "indices", want: wantBoolOrInt, role: "index", list: true}},
	"torch.index_put_":             {{pos: 1, kw: "indices", want: wantBoolOrInt, role: "index", list: true}},
	"torch.__lshift__":             {{pos: 0, kw: "self", want: wantInt, role: "operand"}, {pos: 1, kw: "other", want: wantInt, role: "shift"}},
	"torch.__rshift__":             {{pos: 0, kw: "self", want: wantInt, role: "operand"}, {pos: 1, kw: "other", want: wantInt, role: "shift"}},
	"torch.bitwise_left_shift":     {{pos: 0, kw: "self", want: wantInt, role: "operand"}, {pos: 1, kw: "other", want: wantInt, role: "shift"}},
	"torch.bitwise_right_shift":    {{pos: 0, kw: "self", want: wantInt, role: "operand"}, {pos: 1, kw: "other", want: wantInt, role: "shift"}},
	"torch.bitwise_not":            {{pos: 0, kw: "self", want: wantBoolOrInt, role: "operand"}},
	"torch.bitwise_not_":           {{pos: 0, kw: "self", want: wantBoolOrInt, role: "operand"}},
}

func init() {
	for _, name := range []string{"bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__", "__iand__", "__ior__", "__ixor__", "bitwise_and_", "bitwise_or_", "bitwise_xor_"} {
		opInputUses["torch."+name] = []argUse{{pos: 0, kw: "self", want: wantBoolOrInt, role: "operand"}, {pos: 1, kw: "other", want: wantBoolOrInt, role: "operand"}}
	}
	for _, name := range []string{"repeat_interleave"} {
		// repeat_interleave(x, repeats): a tensor of repeats is counts.
		opInputUses["torch."+name] = []argUse{{pos: 1, kw: "repeats", want: wantInt, role: "repeat counts"}}
	}
}

// dtypePassThrough are the canonical ops whose first output has the type of
// their first input and holds some of its elements, so that a requirement
// on the output is one on the input (y.view(-1) used as indices).
var dtypePassThrough = map[string]bool{
	"Reshape": true, "Squeeze": true, "Unsqueeze": true, "Transpose": true, "Slice": true,
	"Expand": true, "Flatten": true, "Identity": true, "Tile": true, "Gather": true,
}

// inputUses records, while one read runs, which graph input each value
// comes from and the uses that constrain the inputs' types.
type inputUses struct {
	origin map[string]string // value name -> graph input it passes through from
	uses   []inputUse
}

func (u *inputUses) init() {
	if u.origin == nil {
		u.origin = map[string]string{}
	}
}

// noteInput records that value name is graph input name itself.
func (u *inputUses) noteInput(name string) {
	u.init()
	u.origin[name] = name
}

// noteNode carries an input's identity through a node that keeps its type.
func (u *inputUses) noteNode(n *canon.Node) {
	if len(n.Inputs) == 0 || len(n.Outputs) == 0 || !dtypePassThrough[n.Op.Kind()] {
		return
	}
	if src, ok := u.origin[n.Inputs[0]]; ok {
		u.origin[n.Outputs[0]] = src
	}
}

// noteCall records the uses an operator call makes of graph inputs.
func (in *evaluator) noteCall(op string, args []value, kwargs map[string]value, file string, line int) {
	spec, ok := opInputUses[op]
	if !ok {
		return
	}
	u := &in.b.inUses
	if op == "torch.where" && len(args)+len(kwargs) < 3 {
		return // where(condition) is nonzero, which takes any type
	}
	for _, a := range spec {
		var v value
		if a.pos < len(args) {
			v = args[a.pos]
		} else if kv, ok := kwargs[a.kw]; ok {
			v = kv
		}
		if v == nil {
			continue
		}
		if a.list {
			in.noteIndexList(op, args, v, a, file, line)
			continue
		}
		if t, ok := v.(*tensorVal); ok {
			if a.classesOf > 0 && !in.holdsClassIndices(t, args, a.classesOf-1) {
				continue
			}
			if src, ok := u.origin[t.name]; ok && t.name != "" {
				u.uses = append(u.uses, inputUse{input: src, want: a.want, what: "the " + a.role + " of " + op, file: file, line: line})
			}
		}
	}
}

// noteIndexList records the tensors of x[i, j] (torch.index, index_put).
// A bool mask must have the shape of the axes it covers; an index tensor
// whose known shape cannot be such a mask is integer positions.
func (in *evaluator) noteIndexList(op string, args []value, v value, a argUse, file string, line int) {
	u := &in.b.inUses
	l, ok := v.(*listVal)
	if !ok || len(args) == 0 {
		return
	}
	self, _ := args[0].(*tensorVal)
	var selfInfo canon.ValueInfo
	if self != nil {
		selfInfo = in.b.info(self)
	}
	// axis is where the next index applies while every index before it
	// is known to cover one axis (None, or integer positions).
	axis, axisKnown := 0, true
	for k, item := range l.items {
		t, ok := item.(*tensorVal)
		if !ok {
			axis++ // None covers one axis
			continue
		}
		info := in.b.info(t)
		src, fromInput := u.origin[t.name]
		fromInput = fromInput && t.name != ""
		want := a.want
		switch {
		case !fromInput && info.DType.IsInt():
			want = wantInt
		case !fromInput && info.DType == canon.Bool:
			want = wantBool
		case axisKnown && info.RankKnown && selfInfo.RankKnown && !couldBeMask(info.Shape, selfInfo.Shape, axis):
			want = wantInt
		}
		if fromInput {
			u.uses = append(u.uses, inputUse{input: src, want: want, what: fmt.Sprintf("index %d of %s", k, op), file: file, line: line})
		}
		if want == wantInt {
			axis++
		} else {
			axisKnown = false // a mask covers as many axes as it has
		}
	}
}

// couldBeMask reports whether a tensor of shape mask could be a bool mask
// over the axes of self from axis on (same sizes where both are known).
func couldBeMask(mask, self []canon.Dim, axis int) bool {
	if axis+len(mask) > len(self) {
		return false
	}
	for i, d := range mask {
		s := self[axis+i]
		if d.Known() && s.Known() && d.Size != s.Size {
			return false
		}
	}
	return true
}

// inferredDType is a type inferred for one input, with the use that
// decided it.
type inferredDType struct {
	dtype canon.DType
	why   inputUse
	// tentative: the input's uses so far take bool or integer; it is read
	// as int64 once more to find a use that decides (a later gather), and
	// refused when none does.
	tentative bool
}

// undecidedError is the refusal of an input whose uses take bool or
// integer tensors alike.
func undecidedError(name string, u inputUse) string {
	return fmt.Sprintf("input %s is %s, which takes bool or integer tensors, and the archive does not record which %s is; give its type with --input-shape %s=i64:D1,D2,... or %s=bool:D1,D2,... (or --input-type %s=i64)", name, u.where(), name, name, name, name)
}

// resolveInputDTypes turns the recorded uses into input types. It returns
// the types that differ from current (the archive must be read again), or
// an error for an input whose uses conflict or leave its type open. An
// input whose uses so far take bool or integer alike is tried as int64
// once (when the read failed), in case a later use decides.
func resolveInputDTypes(uses []inputUse, current map[string]inferredDType, given func(string) bool, failed bool) (map[string]inferredDType, error) {
	byInput := map[string][]inputUse{}
	var names []string
	for _, u := range uses {
		if given(u.input) {
			continue
		}
		if _, seen := byInput[u.input]; !seen {
			names = append(names, u.input)
		}
		byInput[u.input] = append(byInput[u.input], u)
	}
	sort.Strings(names)
	changed := map[string]inferredDType{}
	var open []string
	for _, name := range names {
		var asInt, asBool, undecided *inputUse
		for i := range byInput[name] {
			u := &byInput[name][i]
			switch {
			case u.want == wantInt && asInt == nil:
				asInt = u
			case u.want == wantBool && asBool == nil:
				asBool = u
			case u.want == wantBoolOrInt && undecided == nil:
				undecided = u
			}
		}
		var d inferredDType
		switch {
		case asInt != nil && asBool != nil:
			return nil, fmt.Errorf("input %s is used both as integers (%s) and as a bool mask (%s); give its type with --input-type %s=TYPE or --input-shape %s=TYPE:D1,D2,...", name, asInt.where(), asBool.where(), name, name)
		case asBool != nil:
			d = inferredDType{dtype: canon.Bool, why: *asBool}
		case asInt != nil:
			d = inferredDType{dtype: canon.Int64, why: *asInt}
		default:
			if cur, ok := current[name]; ok && cur.tentative {
				open = append(open, undecidedError(name, *undecided))
			} else if failed {
				changed[name] = inferredDType{dtype: canon.Int64, why: *undecided, tentative: true}
			}
			continue
		}
		cur, ok := current[name]
		switch {
		case !ok || cur.dtype != d.dtype:
			changed[name] = d
		case cur.tentative:
			current[name] = d // the trial type, now decided by a use
		}
	}
	if len(open) > 0 {
		return nil, errors.New(strings.Join(open, "; "))
	}
	return changed, nil
}

// inferredNote is the note that says which input types were inferred.
func inferredNote(inferred map[string]inferredDType) string {
	var names []string
	for n := range inferred {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		d := inferred[n]
		parts = append(parts, fmt.Sprintf("%s is %s (%s)", n, d.dtype, d.why.where()))
	}
	return formats.InferredTypesNote + " (the archive does not record them; --input-type NAME=TYPE gives another): " + strings.Join(parts, "; ")
}

// stillTentative refuses the inputs read as int64 on trial that no use
// decided.
func stillTentative(inferred map[string]inferredDType) error {
	var names, msgs []string
	for n, d := range inferred {
		if d.tentative {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		msgs = append(msgs, undecidedError(n, inferred[n].why))
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// holdsClassIndices reports whether target has one axis less than the
// input at args[inputPos] (both ranks known): a loss target of class
// indices, where one of the input's shape would hold probabilities.
func (in *evaluator) holdsClassIndices(target *tensorVal, args []value, inputPos int) bool {
	if inputPos >= len(args) {
		return false
	}
	x, ok := args[inputPos].(*tensorVal)
	if !ok {
		return false
	}
	ti, xi := in.b.info(target), in.b.info(x)
	return ti.RankKnown && xi.RankKnown && len(ti.Shape) == len(xi.Shape)-1
}
