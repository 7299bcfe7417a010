package canon

// Control flow: If, Loop and Scan run subgraphs (see subgraph.go for how
// they read outer values).

// If runs Then when the boolean scalar Cond is true, Else otherwise, and
// yields that branch's outputs. Inputs: Cond, then one per capture.
type If struct {
	Then, Else *Graph
	Captures   []string
}

func (*If) Kind() string { return "If" }
func (o *If) Signature() Signature {
	in := []InputSpec{{Name: "Cond"}}
	in = append(in, captureSpecs(o.Captures)...)
	outs := 0
	if o.Then != nil {
		outs = len(o.Then.Outputs)
	}
	return Signature{Inputs: in, MinOutputs: min(outs, 1), MaxOutputs: outs}
}
func (o *If) Subgraphs() []NamedGraph {
	return []NamedGraph{{"then_branch", o.Then}, {"else_branch", o.Else}}
}
func (o *If) CaptureNames() []string { return o.Captures }

// Loop runs Body while the iteration count is below M (when given) and the
// condition is true (when given), threading the carried values through.
// Body's inputs are (iteration number int64 scalar, condition bool scalar,
// carried values...), its outputs (condition, carried values..., scan
// outputs...). The node's inputs are (M?, Cond?, initial carried values...,
// captures...); its outputs the final carried values, then each scan
// output stacked over the iterations along a new first axis.
type Loop struct {
	Body     *Graph
	Captures []string
}

func (*Loop) Kind() string { return "Loop" }
func (o *Loop) Signature() Signature {
	in := []InputSpec{{Name: "M", Optional: true}, {Name: "Cond", Optional: true}}
	for range o.Carried() {
		in = append(in, InputSpec{Name: "Initial"})
	}
	in = append(in, captureSpecs(o.Captures)...)
	n := o.Carried() + o.ScanOutputs()
	return Signature{Inputs: in, MinOutputs: min(n, 1), MaxOutputs: n}
}
func (o *Loop) Subgraphs() []NamedGraph { return []NamedGraph{{"body", o.Body}} }
func (o *Loop) CaptureNames() []string  { return o.Captures }

// Carried is the number of loop-carried values.
func (o *Loop) Carried() int {
	if o.Body == nil {
		return 0
	}
	return max(len(o.Body.Inputs)-2, 0)
}

// ScanOutputs is the number of per-iteration outputs.
func (o *Loop) ScanOutputs() int {
	if o.Body == nil {
		return 0
	}
	return max(len(o.Body.Outputs)-1-o.Carried(), 0)
}

// Scan runs Body once per slice of its scan inputs (ONNX Scan, opset 9 and
// later): Body's inputs are (states..., one slice of each scan input...),
// its outputs (states..., scan output slices...). The node's inputs are
// (initial states..., scan inputs..., captures...), its outputs (final
// states..., scan outputs...). Axes may be negative (counted from the
// end); directions are 0 (forward) or 1 (reverse). Empty lists mean axis 0
// and forward for every entry.
type Scan struct {
	Body             *Graph
	NumScanInputs    int64
	InputAxes        []int64
	InputDirections  []int64
	OutputAxes       []int64
	OutputDirections []int64
	Captures         []string
}

func (*Scan) Kind() string { return "Scan" }
func (o *Scan) Signature() Signature {
	var in []InputSpec
	for range o.States() {
		in = append(in, InputSpec{Name: "InitialState"})
	}
	for range max(o.NumScanInputs, 0) {
		in = append(in, InputSpec{Name: "ScanInput"})
	}
	in = append(in, captureSpecs(o.Captures)...)
	n := 0
	if o.Body != nil {
		n = len(o.Body.Outputs)
	}
	return Signature{Inputs: in, MinOutputs: min(n, 1), MaxOutputs: n}
}
func (o *Scan) Subgraphs() []NamedGraph { return []NamedGraph{{"body", o.Body}} }
func (o *Scan) CaptureNames() []string  { return o.Captures }

// States is the number of state values.
func (o *Scan) States() int {
	if o.Body == nil {
		return 0
	}
	return max(len(o.Body.Inputs)-int(o.NumScanInputs), 0)
}

// ScanOutputCount is the number of scan outputs.
func (o *Scan) ScanOutputCount() int {
	if o.Body == nil {
		return 0
	}
	return max(len(o.Body.Outputs)-o.States(), 0)
}

// entry returns v[i], or def when the list is shorter.
func entry(v []int64, i int, def int64) int64 {
	if i < len(v) {
		return v[i]
	}
	return def
}

// InputAxis is scan input i's axis (possibly negative).
func (o *Scan) InputAxis(i int) int64 { return entry(o.InputAxes, i, 0) }

// InputReversed reports whether scan input i is read last to first.
func (o *Scan) InputReversed(i int) bool { return entry(o.InputDirections, i, 0) == 1 }

// OutputAxis is scan output i's axis (possibly negative).
func (o *Scan) OutputAxis(i int) int64 { return entry(o.OutputAxes, i, 0) }

// OutputReversed reports whether scan output i is stacked last to first.
func (o *Scan) OutputReversed(i int) bool { return entry(o.OutputDirections, i, 0) == 1 }

func captureSpecs(caps []string) []InputSpec {
	out := make([]InputSpec, len(caps))
	for i, name := range caps {
		out[i] = InputSpec{Name: "capture " + name}
	}
	return out
}
