package canon

// The random family: RandomUniform, RandomNormal, RandomUniformLike,
// RandomNormalLike, Bernoulli and Multinomial, ONNX's sampling ops. Their
// outputs are draws, not functions of the inputs: every kind has the
// Nondeterministic trait, which constant folding, node merging, `check` and
// the optimizer's verification respect (see Traits). Seeded is ONNX's
// optional seed attribute: without it the runtime picks the generator's
// state; with it a runtime may repeat its own stream, but no two runtimes
// (nor PyTorch) share one.

func init() {
	for _, d := range randomOps() {
		d.Traits.Nondeterministic = true
		Register(withReason(d, randomWithout))
	}
}

// ---- typed attributes ----

// RandomUniform draws a tensor of the given Shape and float DType from the
// uniform distribution on [Low, High).
type RandomUniform struct {
	Low, High float32
	DType     DType
	Shape     []int64
	Seed      float32
	Seeded    bool
}

func (*RandomUniform) Kind() string         { return "RandomUniform" }
func (*RandomUniform) Signature() Signature { return sig(1) }

// RandomNormal draws a tensor of the given Shape and float DType from the
// normal distribution with mean Mean and standard deviation Scale.
type RandomNormal struct {
	Mean, Scale float32
	DType       DType
	Shape       []int64
	Seed        float32
	Seeded      bool
}

func (*RandomNormal) Kind() string         { return "RandomNormal" }
func (*RandomNormal) Signature() Signature { return sig(1) }

// RandomUniformLike is RandomUniform with X's shape (X's values are not
// read). DType is resolved at import (ONNX's default is X's dtype).
type RandomUniformLike struct {
	Low, High float32
	DType     DType
	Seed      float32
	Seeded    bool
}

func (*RandomUniformLike) Kind() string         { return "RandomUniformLike" }
func (*RandomUniformLike) Signature() Signature { return sig(1, inX) }

// RandomNormalLike is RandomNormal with X's shape (X's values are not read).
type RandomNormalLike struct {
	Mean, Scale float32
	DType       DType
	Seed        float32
	Seeded      bool
}

func (*RandomNormalLike) Kind() string         { return "RandomNormalLike" }
func (*RandomNormalLike) Signature() Signature { return sig(1, inX) }

// Bernoulli draws 1 with probability X (a float tensor of probabilities in
// [0, 1]) and 0 otherwise, elementwise, as DType.
type Bernoulli struct {
	DType  DType
	Seed   float32
	Seeded bool
}

func (*Bernoulli) Kind() string         { return "Bernoulli" }
func (*Bernoulli) Signature() Signature { return sig(1, inX) }

// Multinomial draws SampleSize class indices per row of X (batch, classes),
// with replacement, class k with probability softmax(X row)[k]: X holds
// unnormalized log-probabilities. The indices are DType (Int32 or Int64).
type Multinomial struct {
	SampleSize int64
	DType      DType
	Seed       float32
	Seeded     bool
}

func (*Multinomial) Kind() string         { return "Multinomial" }
func (*Multinomial) Signature() Signature { return sig(1, inX) }

// ---- definitions ----

func randomOps() []*OpDef {
	return []*OpDef{
		{
			Kind: "RandomUniform", Summary: "draws of a given shape, uniform on [low, high)",
			New: func() Op { return &RandomUniform{High: 1, DType: Float32} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				op := c.n.Op.(*RandomUniform)
				return one(c.drawn(op.DType, op.Shape))
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*RandomUniform)
				if err := checkDrawBounds(c, op.Low, op.High, "Low", "High"); err != nil {
					return err
				}
				if err := checkFloatDraw(c, op.DType); err != nil {
					return err
				}
				return c.AtLeast("Shape", op.Shape, 0)
			},
			Example: func() Example {
				return Example{Op: &RandomUniform{Low: -1, High: 2, DType: Float32, Shape: []int64{2, 3}, Seed: 3, Seeded: true}}
			},
		},
		{
			Kind: "RandomNormal", Summary: "draws of a given shape, normal with a mean and a scale",
			New: func() Op { return &RandomNormal{Scale: 1, DType: Float32} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				op := c.n.Op.(*RandomNormal)
				return one(c.drawn(op.DType, op.Shape))
			},
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*RandomNormal)
				if err := checkDrawBounds(c, 0, op.Scale, "0", "Scale"); err != nil {
					return err
				}
				if err := checkFloatDraw(c, op.DType); err != nil {
					return err
				}
				return c.AtLeast("Shape", op.Shape, 0)
			},
			Example: func() Example {
				return Example{Op: &RandomNormal{Mean: 1, Scale: 0.5, DType: Float32, Shape: []int64{3, 2}}}
			},
		},
		{
			Kind: "RandomUniformLike", Summary: "draws of the input's shape, uniform on [low, high)",
			New:   func() Op { return &RandomUniformLike{High: 1, DType: Float32} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.drawnLike(c.n.Op.(*RandomUniformLike).DType)) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*RandomUniformLike)
				if err := checkDrawBounds(c, op.Low, op.High, "Low", "High"); err != nil {
					return err
				}
				return checkFloatDraw(c, op.DType)
			},
			Example: func() Example {
				return Example{Op: &RandomUniformLike{Low: 0.5, High: 1.5, DType: Float32},
					Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 4}}}}
			},
		},
		{
			Kind: "RandomNormalLike", Summary: "draws of the input's shape, normal with a mean and a scale",
			New:   func() Op { return &RandomNormalLike{Scale: 1, DType: Float32} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.drawnLike(c.n.Op.(*RandomNormalLike).DType)) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*RandomNormalLike)
				if err := checkDrawBounds(c, 0, op.Scale, "0", "Scale"); err != nil {
					return err
				}
				return checkFloatDraw(c, op.DType)
			},
			Example: func() Example {
				return Example{Op: &RandomNormalLike{Scale: 2, DType: Float32, Seed: 3, Seeded: true},
					Inputs: []ExampleInput{{DType: Float32, Shape: []int64{4, 3}}}}
			},
		},
		{
			Kind: "Bernoulli", Summary: "1 with the input's probability, else 0, elementwise",
			New: func() Op { return &Bernoulli{DType: Float32} },
			Infer: func(c *InferCtx) ([]ValueInfo, error) {
				if dt := c.in[0].DType; dt != Undefined && !dt.IsFloat() {
					return nil, c.errf("%s is %s; Bernoulli reads probabilities (a float tensor)", c.slot(0), dt)
				}
				return one(c.drawnLike(c.n.Op.(*Bernoulli).DType))
			},
			Check: func(c *CheckCtx) error {
				if dt := c.N.Op.(*Bernoulli).DType; dt == Undefined || dt.Size() == 0 {
					return c.Errorf("DType %s is not a tensor dtype", dt)
				}
				return nil
			},
			Example: func() Example {
				p := NewFloat32Tensor("", []int64{2, 3}, []float32{0, 1, 0.5, 0.25, 1, 0})
				return Example{Op: &Bernoulli{DType: Float32}, Inputs: []ExampleInput{{DType: Float32, Shape: p.Shape, Const: p}}}
			},
		},
		{
			Kind: "Multinomial", Summary: "class indices drawn per row from softmax(input), with replacement",
			HalfUnsafe: "the softmax of log-probabilities needs float32's exponent range",
			New:        func() Op { return &Multinomial{SampleSize: 1, DType: Int32} },
			Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.multinomial(c.n.Op.(*Multinomial))) },
			Check: func(c *CheckCtx) error {
				op := c.N.Op.(*Multinomial)
				if op.DType != Int32 && op.DType != Int64 {
					return c.Errorf("DType %s: the indices are i32 or i64", op.DType)
				}
				if op.SampleSize < 1 {
					return c.Errorf("SampleSize is %d, must be >= 1", op.SampleSize)
				}
				return nil
			},
			Example: func() Example {
				return Example{Op: &Multinomial{SampleSize: 5, DType: Int64}, Inputs: []ExampleInput{{DType: Float32, Shape: []int64{2, 4}}}}
			},
		},
	}
}

func checkDrawBounds(c *CheckCtx, lo, hi float32, loName, hiName string) error {
	if !(lo <= hi) || hi-lo > 3.4e38 {
		return c.Errorf("%s %g and %s %g: want finite %s <= %s", loName, lo, hiName, hi, loName, hiName)
	}
	return nil
}

func checkFloatDraw(c *CheckCtx, dt DType) error {
	if !dt.IsFloat() {
		return c.Errorf("DType %s: the draws are a float type", dt)
	}
	return nil
}

// randomWithout is why the random kinds leave slots empty.
var randomWithout = Without{
	Accumulation: SumsNothing,
	RemapAxes:    "a draw is not a function of its input, so no rewrite is checkable against it",
	Decompose:    "a primitive: a draw from the runtime's generator",
	Noop:         NoNoopSetting,
}

// ---- inference ----

// drawn is the type of a draw of a fixed shape.
func (c *InferCtx) drawn(dt DType, shape []int64) (ValueInfo, error) {
	for _, d := range shape {
		if d < 0 {
			return ValueInfo{}, c.errf("Shape %v has a negative size", shape)
		}
	}
	return shaped(dt, DimsOf(shape...)), nil
}

// drawnLike is the type of a draw of input 0's shape.
func (c *InferCtx) drawnLike(dt DType) (ValueInfo, error) {
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: dt}, nil
	}
	return shaped(dt, cloneDims(x.Shape)), nil
}

func (c *InferCtx) multinomial(op *Multinomial) (ValueInfo, error) {
	if err := c.needRank(0, 2, "Multinomial"); err != nil {
		return ValueInfo{}, err
	}
	if dt := c.in[0].DType; dt != Undefined && !dt.IsFloat() {
		return ValueInfo{}, c.errf("%s is %s; Multinomial reads log-probabilities (a float tensor)", c.slot(0), dt)
	}
	x := c.in[0]
	batch := unknownDim
	if x.RankKnown {
		batch = x.Shape[0]
	}
	return shaped(op.DType, []Dim{batch, knownDim(op.SampleSize)}), nil
}

// IsNondeterministic reports whether op's outputs are random draws.
func IsNondeterministic(op Op) bool { return TraitsOf(op).Nondeterministic }
