package canon

import "fmt"

// Grid resampling: GridSample (sample X at normalized points), AffineGrid
// (the points of an affine map) and Col2Im (sum sliding blocks back into
// an image), as ONNX defines them after PyTorch's grid_sample, affine_grid
// and fold.

func init() {
	Register(withReason(&OpDef{
		Kind: "GridSample", Summary: "sample X at the normalized points of Grid (nearest, linear or cubic; zeros, border or reflection padding)",
		New:   func() Op { return &GridSample{Mode: ResizeLinear} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.gridSample()) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*GridSample)
			if int(op.Mode) >= len(resizeModeNames) || int(op.Padding) >= len(gridPaddingNames) {
				return c.Errorf("unknown mode %d or padding %d", op.Mode, op.Padding)
			}
			return nil
		},
		Example: func() Example {
			grid := exampleF32(1, 3, 4, 2)
			grid.Const = scaleTensor(grid.Const, 1.2) // some points fall outside
			return Example{Op: &GridSample{Mode: ResizeLinear, Padding: GridZeros, AlignCorners: true}, Inputs: []ExampleInput{exampleX, grid}}
		},
	}, gridWithout))
	Register(withReason(&OpDef{
		Kind: "AffineGrid", Summary: "the normalized sampling grid of a batch of affine maps Theta over an output of Size",
		New:   func() Op { return &AffineGrid{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.affineGrid()) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*AffineGrid)
			if op.Size != nil && len(op.Size) != 4 && len(op.Size) != 5 {
				return c.Errorf("Size %v: want (N, C, H, W) or (N, C, D, H, W)", op.Size)
			}
			return c.AtLeast("Size", op.Size, 0)
		},
		Example: func() Example {
			return Example{Op: &AffineGrid{Size: []int64{2, 1, 3, 4}, AlignCorners: true}, Inputs: []ExampleInput{exampleF32(2, 2, 3)}}
		},
	}, gridWithout))
	Register(withReason(&OpDef{
		Kind: "Col2Im", Summary: "sum the sliding blocks of a (N, C·∏block, L) tensor back into (N, C, image...) (PyTorch's fold)",
		New:   func() Op { return &Col2Im{} },
		Infer: func(c *InferCtx) ([]ValueInfo, error) { return one(c.col2im()) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*Col2Im)
			return firstErr(c.AtLeast("ImageShape", op.ImageShape, 1), c.AtLeast("BlockShape", op.BlockShape, 1),
				c.AtLeast("Strides", op.Strides, 1), c.AtLeast("Dilations", op.Dilations, 1),
				c.AtLeast("PadsBegin", op.PadsBegin, 0), c.AtLeast("PadsEnd", op.PadsEnd, 0))
		},
		Example: func() Example {
			// 2 channels of 2×2 blocks with stride 1 over a 3×4 image: 2·3 blocks.
			return Example{Op: &Col2Im{ImageShape: []int64{3, 4}, BlockShape: []int64{2, 2}}, Inputs: []ExampleInput{exampleF32(1, 8, 6)}}
		},
	}, gridWithout))
}

// GridPadding is what GridSample reads outside the input.
type GridPadding uint8

const (
	GridZeros GridPadding = iota
	GridBorder
	GridReflection
)

var gridPaddingNames = [...]string{GridZeros: "zeros", GridBorder: "border", GridReflection: "reflection"}

func (p GridPadding) String() string {
	if int(p) < len(gridPaddingNames) {
		return gridPaddingNames[p]
	}
	return fmt.Sprintf("GridPadding(%d)", p)
}

// GridSample samples X (N, C, D1..Dr) at Grid (N, O1..Or, r), whose last
// axis holds normalized coordinates in [-1, 1], the last spatial axis
// first (x, y[, z]). AlignCorners puts -1 and 1 on the centres of the
// corner elements, otherwise on their outer edges. Mode reuses Resize's:
// nearest, linear or cubic (a = -0.75).
type GridSample struct {
	Mode         ResizeMode
	Padding      GridPadding
	AlignCorners bool
}

func (*GridSample) Kind() string         { return "GridSample" }
func (*GridSample) Signature() Signature { return sig(1, inX, InputSpec{Name: "Grid"}) }

// AffineGrid maps the normalized output coordinates of each batch item
// through Theta (N, 2, 3) or (N, 3, 4): Y[n, ..., :] = Theta[n] · (x, y[,
// z], 1). Size is the output size (N, C, H, W) or (N, C, D, H, W); nil
// when the Size input gives it at run time.
type AffineGrid struct {
	AlignCorners bool
	Size         []int64
}

func (*AffineGrid) Kind() string         { return "AffineGrid" }
func (*AffineGrid) Signature() Signature { return sig(1, InputSpec{Name: "Theta"}, param("Size")) }

func (o *AffineGrid) AttrGiven(int) (string, bool) { return "Size", o.Size != nil }

// Col2Im adds each column of X (N, C·∏BlockShape, L) back at its block's
// place in an image of ImageShape, blocks sliding by Strides with
// Dilations over the image padded by PadsBegin/PadsEnd (nil: 1s and 0s).
// ImageShape and BlockShape are nil when the inputs of that name give them
// at run time.
type Col2Im struct {
	ImageShape, BlockShape []int64
	Strides, Dilations     []int64
	PadsBegin, PadsEnd     []int64
}

func (*Col2Im) Kind() string { return "Col2Im" }
func (*Col2Im) Signature() Signature {
	return sig(1, inX, param("ImageShape"), param("BlockShape"))
}

func (o *Col2Im) AttrGiven(slot int) (string, bool) {
	if slot == 1 {
		return "ImageShape", o.ImageShape != nil
	}
	return "BlockShape", o.BlockShape != nil
}

// Col2ImPlan is a Col2Im with its defaults filled in for image and block
// shapes of n axes: the blocks along each axis, their count L and the
// channels C.
type Col2ImPlan struct {
	Strides, Dilations, PadsBegin, PadsEnd []int64
	Blocks                                 []int64
	L, BlockSize                           int64
}

// Plan resolves the op against its image and block shapes.
func (o *Col2Im) Plan(image, block []int64) (Col2ImPlan, error) {
	n := len(image)
	if len(block) != n {
		return Col2ImPlan{}, fmt.Errorf("image shape %v and block shape %v have different lengths", image, block)
	}
	fill := func(v []int64, def int64, name string) ([]int64, error) {
		if v == nil {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != n {
			return nil, fmt.Errorf("%s %v: want %d values, one per image axis", name, v, n)
		}
		return v, nil
	}
	p := Col2ImPlan{L: 1, BlockSize: 1}
	var err error
	if p.Strides, err = fill(o.Strides, 1, "strides"); err != nil {
		return p, err
	}
	if p.Dilations, err = fill(o.Dilations, 1, "dilations"); err != nil {
		return p, err
	}
	if p.PadsBegin, err = fill(o.PadsBegin, 0, "pads"); err != nil {
		return p, err
	}
	if p.PadsEnd, err = fill(o.PadsEnd, 0, "pads"); err != nil {
		return p, err
	}
	for i := range n {
		if block[i] < 1 || image[i] < 1 || p.Strides[i] < 1 || p.Dilations[i] < 1 || p.PadsBegin[i] < 0 || p.PadsEnd[i] < 0 {
			return p, fmt.Errorf("image shape %v, block shape %v, strides %v, dilations %v and pads must be positive", image, block, p.Strides, p.Dilations)
		}
		span := p.Dilations[i]*(block[i]-1) + 1
		full := image[i] + p.PadsBegin[i] + p.PadsEnd[i]
		if full < span {
			return p, fmt.Errorf("block %v (dilated) does not fit the padded image %v", block, image)
		}
		b := (full-span)/p.Strides[i] + 1
		p.Blocks = append(p.Blocks, b)
		if p.L > (1<<40)/b || p.BlockSize > (1<<40)/block[i] {
			return p, fmt.Errorf("too many blocks")
		}
		p.L *= b
		p.BlockSize *= block[i]
	}
	return p, nil
}

func (c *InferCtx) gridSample() (ValueInfo, error) {
	x, g := c.in[0], c.in[1]
	for i, v := range []ValueInfo{x, g} {
		if v.DType != Undefined && !v.DType.IsFloat() {
			return ValueInfo{}, c.errf("input %q is %s: GridSample takes floating-point tensors", c.n.Inputs[i], v.DType)
		}
	}
	if !x.RankKnown || !g.RankKnown {
		return ValueInfo{DType: x.DType}, nil
	}
	r := len(x.Shape)
	if r < 3 || len(g.Shape) != r {
		return ValueInfo{}, c.errf("X has shape %s and Grid %s: want (N, C, D1..Dk) and (N, O1..Ok, k)", fmtShape(x), fmtShape(g))
	}
	if d := g.Shape[r-1]; d.Known() && d.Size != int64(r-2) {
		return ValueInfo{}, c.errf("Grid has shape %s: its last axis must hold %d coordinates", fmtShape(g), r-2)
	}
	if a, b := x.Shape[0], g.Shape[0]; a.Known() && b.Known() && a.Size != b.Size {
		return ValueInfo{}, c.errf("X has batch %d but Grid %d", a.Size, b.Size)
	}
	out := []Dim{x.Shape[0], x.Shape[1]}
	if !out[0].Known() {
		out[0] = g.Shape[0]
	}
	out = append(out, g.Shape[1:r-1]...)
	return shaped(x.DType, cloneDims(out)), nil
}

func (c *InferCtx) affineGrid() (ValueInfo, error) {
	op := c.n.Op.(*AffineGrid)
	th := c.in[0]
	if th.DType != Undefined && !th.DType.IsFloat() {
		return ValueInfo{}, c.errf("Theta %q is %s: AffineGrid takes floating-point tensors", c.n.Inputs[0], th.DType)
	}
	size := op.Size
	if size == nil && c.present(1) {
		v, ok, err := c.paramInts(1, "Size")
		if err != nil {
			return ValueInfo{}, err
		}
		if ok {
			size = v
		}
	}
	if th.RankKnown && len(th.Shape) != 3 {
		return ValueInfo{}, c.errf("Theta has shape %s, want (N, 2, 3) or (N, 3, 4)", fmtShape(th))
	}
	if size == nil {
		if th.RankKnown && th.Shape[1].Known() {
			k := int(th.Shape[1].Size)
			if k == 2 || k == 3 {
				out := append([]Dim{th.Shape[0]}, unknownDims(k)...)
				return shaped(th.DType, append(out, knownDim(int64(k)))), nil
			}
		}
		return ValueInfo{DType: th.DType}, nil
	}
	if len(size) != 4 && len(size) != 5 {
		return ValueInfo{}, c.errf("Size %v: want (N, C, H, W) or (N, C, D, H, W)", size)
	}
	k := int64(len(size) - 2)
	if th.RankKnown {
		for i, want := range []int64{size[0], k, k + 1} {
			if d := th.Shape[i]; d.Known() && d.Size != want {
				return ValueInfo{}, c.errf("Theta has shape %s; for Size %v want (%d, %d, %d)", fmtShape(th), size, size[0], k, k+1)
			}
		}
	}
	out := DimsOf(size[0])
	out = append(out, DimsOf(size[2:]...)...)
	return shaped(th.DType, append(out, knownDim(k))), nil
}

func (c *InferCtx) col2im() (ValueInfo, error) {
	op := c.n.Op.(*Col2Im)
	x := c.in[0]
	image, block := op.ImageShape, op.BlockShape
	for i, p := range []*[]int64{&image, &block} {
		if *p == nil && c.present(i+1) {
			v, ok, err := c.paramInts(i+1, []string{"ImageShape", "BlockShape"}[i])
			if err != nil {
				return ValueInfo{}, err
			}
			if ok {
				*p = v
			}
		}
	}
	if x.RankKnown && len(x.Shape) != 3 {
		return ValueInfo{}, c.errf("input %q has shape %s, want (N, C·∏block, L)", c.n.Inputs[0], fmtShape(x))
	}
	if image == nil || block == nil {
		if image != nil {
			out := []Dim{unknownDim, unknownDim}
			if x.RankKnown {
				out[0] = x.Shape[0]
			}
			return shaped(x.DType, append(out, DimsOf(image...)...)), nil
		}
		return ValueInfo{DType: x.DType}, nil
	}
	p, err := op.Plan(image, block)
	if err != nil {
		return ValueInfo{}, c.errf("%v", err)
	}
	out := []Dim{unknownDim, unknownDim}
	if x.RankKnown {
		out[0] = x.Shape[0]
		if d := x.Shape[1]; d.Known() {
			if d.Size%p.BlockSize != 0 {
				return ValueInfo{}, c.errf("input %q has %d rows, not a multiple of the block size %d", c.n.Inputs[0], d.Size, p.BlockSize)
			}
			out[1] = knownDim(d.Size / p.BlockSize)
		}
		if d := x.Shape[2]; d.Known() && d.Size != p.L {
			return ValueInfo{}, c.errf("input %q has %d columns but the image holds %d blocks", c.n.Inputs[0], d.Size, p.L)
		}
	}
	return shaped(x.DType, append(out, DimsOf(image...)...)), nil
}

// scaleTensor returns a float32 tensor's values times s.
func scaleTensor(t *Tensor, s float32) *Tensor {
	v, _ := t.Float64s()
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x) * s
	}
	return NewFloat32Tensor(t.Name, t.Shape, f)
}

// gridWithout is why this family's kinds leave a slot empty, unless a kind says
// otherwise.
var gridWithout = Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}
