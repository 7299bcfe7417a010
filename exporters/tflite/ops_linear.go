package tfliteexport

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

// fcInput returns Linear/MatMul input a for FULLY_CONNECTED: the
// flattening of an NHWC value when a is held so (with its C, H, W), its
// canonical order otherwise.
func (e *exporter) fcInput(n *canon.Node, a string) (int32, []int64, []int, error) {
	if e.constOf(a) == nil {
		for _, h := range e.held[a] {
			if h.flatCHW != nil {
				return h.idx, h.flatCHW, nil, nil
			}
		}
		// FULLY_CONNECTED contracts the file's last axis: any layout that
		// keeps the canonical last axis last will do, and the output
		// keeps it.
		if s, err := e.shape(a); err == nil && len(s) > 2 {
			if idx, p, err := e.anyLayout(a); err == nil && permOrIdentity(p, len(s))[len(s)-1] == len(s)-1 {
				return idx, nil, p, nil
			}
		}
	}
	idx, err := e.input(a, nil)
	if err != nil {
		return 0, nil, nil, nodeErr(n, "%v", err)
	}
	return idx, nil, nil, nil
}

// permuteColumns reorders the columns of an (N, C·H·W) weight into
// (H, W, C) order, matching an input flattened from NHWC.
func permuteColumns(w []float32, rows int64, chw []int64) []float32 {
	c, h, wd := chw[0], chw[1], chw[2]
	cols := c * h * wd
	out := make([]float32, len(w))
	for r := int64(0); r < rows; r++ {
		for ci := int64(0); ci < c; ci++ {
			for hi := int64(0); hi < h; hi++ {
				for wi := int64(0); wi < wd; wi++ {
					out[r*cols+(hi*wd+wi)*c+ci] = w[r*cols+(ci*h+hi)*wd+wi]
				}
			}
		}
	}
	return out
}

// fullyConnected writes FULLY_CONNECTED of input a (n's value name) by
// the (N, K) weight w with bias, into a new tensor for value out.
func (e *exporter) fullyConnected(n *canon.Node, a string, w *canon.Tensor, bias []float32, out string, act tflitefb.ActivationFunctionType) error {
	x, chw, perm, err := e.fcInput(n, a)
	if err != nil {
		return err
	}
	as, err := e.shape(a)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	keep := len(as) > 2
	if chw != nil {
		v, err := floats(w)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		w = canon.NewFloat32Tensor(w.Name+"/hwc", w.Shape, permuteColumns(v, w.Shape[0], chw))
		e.report.flattenedFC++
	}
	wf, err := e.constTensor(w.Name, w, nil)
	if err != nil {
		return err
	}
	ins := []int32{x, wf}
	if bias != nil {
		bf, err := e.constF32(n.Name+"/bias", []int32{int32(len(bias))}, bias)
		if err != nil {
			return err
		}
		ins = append(ins, bf)
	} else {
		ins = append(ins, -1)
	}
	y, err := e.define(out, perm)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorFULLY_CONNECTED, ins, []int32{y}, tflitefb.BuiltinOptionsFullyConnectedOptions, func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.FullyConnectedOptionsStart(b)
		tflitefb.FullyConnectedOptionsAddFusedActivationFunction(b, act)
		tflitefb.FullyConnectedOptionsAddKeepNumDims(b, keep)
		return tflitefb.FullyConnectedOptionsEnd(b)
	})
	return nil
}

func writeLinear(e *exporter, n *canon.Node) error {
	op := n.Op.(*canon.Linear)
	wt := e.constOf(n.Inputs[1])
	if wt == nil {
		return nodeErr(n, "its weight is computed at run time; TFLite's FULLY_CONNECTED is written with a constant weight only")
	}
	as, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if len(as) != 2 {
		return nodeErr(n, "input of rank %d; Linear's A is a matrix", len(as))
	}
	nOut := wt.Shape[0]
	if op.Alpha != 1 {
		v, err := floats(wt)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		for i := range v {
			v[i] *= op.Alpha
		}
		wt = canon.NewFloat32Tensor(wt.Name+"/alpha", wt.Shape, v)
	}
	bias := make([]float32, nOut)
	if len(n.Inputs) > 2 && n.Inputs[2] != "" && op.Beta != 0 {
		c := e.constOf(n.Inputs[2])
		if c == nil || c.NumElements() != nOut && c.NumElements() != 1 {
			return nodeErr(n, "its C term is not a constant of %d (or 1) values; TFLite's FULLY_CONNECTED adds only a bias vector", nOut)
		}
		v, err := floats(c)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		for i := range bias {
			bias[i] = op.Beta * v[i%len(v)]
		}
	}
	return e.fullyConnected(n, n.Inputs[0], wt, bias, e.outName(n), e.fusedAct[n])
}

func writeMatMul(e *exporter, n *canon.Node) error {
	as, err := e.shape(n.Inputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	bs, err := e.shape(n.Inputs[1])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	if len(as) >= 2 && len(bs) >= 2 && as[len(as)-1] == 1 {
		// A sum of one product: (…, M, 1) · (…, 1, N) is their broadcast
		// MUL, in any layout (adaptive pools written as matrix products).
		return e.broadcastOp(n, tflitefb.BuiltinOperatorMUL, n.Inputs[:2], 0)
	}
	bt := e.constOf(n.Inputs[1])
	at := e.constOf(n.Inputs[0])
	if len(as) == 4 && at == nil && bt != nil && len(bt.Shape) == 2 && !e.lastAxisLast(n.Inputs[0], 4) {
		return e.spatialMatMul(n, bt, true)
	}
	if len(bs) == 4 && bt == nil && at != nil && len(at.Shape) == 2 {
		return e.spatialMatMul(n, at, false)
	}
	if bt == nil || len(bt.Shape) != 2 {
		return e.batchMatMul(n)
	}
	if len(as) < 2 {
		return nodeErr(n, "its left operand is a vector; FULLY_CONNECTED needs a matrix")
	}
	// B (K, N) -> weight (N, K).
	shape, data, err := permuteData(bt, []int{1, 0})
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	w := &canon.Tensor{Name: bt.Name + "/t", DType: bt.DType, Shape: shape, Data: data}
	return e.fullyConnected(n, n.Inputs[0], w, make([]float32, shape[0]), e.outName(n), 0)
}

// batchMatMul writes BATCH_MATMUL over both operands in canonical order,
// broadcast to one rank.
func (e *exporter) batchMatMul(n *canon.Node) error {
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	r := len(ys)
	for _, in := range n.Inputs[:2] {
		s, err := e.shape(in)
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		if len(s) < 2 {
			return nodeErr(n, "operand %q is a vector; BATCH_MATMUL needs matrices", in)
		}
	}
	a, err := e.inputRank(n.Inputs[0], r, nil)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	b, err := e.inputRank(n.Inputs[1], r, nil)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	out, err := e.define(n.Outputs[0], nil)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	e.emit(tflitefb.BuiltinOperatorBATCH_MATMUL, []int32{a, b}, []int32{out}, tflitefb.BuiltinOptionsBatchMatMulOptions, func(fb *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.BatchMatMulOptionsStart(fb)
		return tflitefb.BatchMatMulOptionsEnd(fb)
	})
	return nil
}

// spatialMatMul multiplies a 4-D value, held NHWC, by a constant matrix
// along W (X·M, right) or H (M·X, left), as adaptive pools are written,
// without moving the value out of NHWC: along W, BATCH_MATMUL(Mᵀ, X)
// over X's (W, C) matrices gives (N, H, W', C); along H, X reshaped to
// (N, H, W·C) is multiplied from the left and reshaped back.
func (e *exporter) spatialMatMul(n *canon.Node, m *canon.Tensor, right bool) error {
	xName := n.Inputs[0]
	if !right {
		xName = n.Inputs[1]
	}
	xs, err := e.shape(xName)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	ys, err := e.shape(n.Outputs[0])
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	x, err := e.input(xName, nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	out, err := e.define(e.outName(n), nhwc)
	if err != nil {
		return nodeErr(n, "%v", err)
	}
	opts := func(fb *flatbuffers.Builder) flatbuffers.UOffsetT {
		tflitefb.BatchMatMulOptionsStart(fb)
		return tflitefb.BatchMatMulOptionsEnd(fb)
	}
	dt := e.dtype(xName)
	if right {
		shape, data, err := permuteData(m, []int{1, 0})
		if err != nil {
			return nodeErr(n, "%v", err)
		}
		mt := &canon.Tensor{Name: m.Name + "/t", DType: m.DType, Shape: append([]int64{1, 1}, shape...), Data: data}
		mi, err := e.constTensor(mt.Name, mt, nil)
		if err != nil {
			return err
		}
		e.emit(tflitefb.BuiltinOperatorBATCH_MATMUL, []int32{mi, x}, []int32{out}, tflitefb.BuiltinOptionsBatchMatMulOptions, opts)
		return nil
	}
	flat := []int32{int32(xs[0]), int32(xs[2]), int32(xs[3] * xs[1])}
	x3, err := e.scratch(n.Name+"/rows", flat, dt)
	if err != nil {
		return err
	}
	if err := e.reshapeInto(x, x3, flat); err != nil {
		return err
	}
	m3 := *m
	m3.Shape = append([]int64{1}, m.Shape...)
	mi, err := e.constTensor(m.Name+"/3d", &m3, nil)
	if err != nil {
		return err
	}
	y3, err := e.scratch(n.Name+"/product", []int32{int32(ys[0]), int32(ys[2]), int32(ys[3] * ys[1])}, dt)
	if err != nil {
		return err
	}
	e.emit(tflitefb.BuiltinOperatorBATCH_MATMUL, []int32{mi, x3}, []int32{y3}, tflitefb.BuiltinOptionsBatchMatMulOptions, opts)
	return e.reshapeInto(y3, out, fileShape(ys, nhwc))
}

// lastAxisLast reports whether value v (of rank r) is held with its
// canonical last axis last in the file.
func (e *exporter) lastAxisLast(v string, r int) bool {
	if e.constOf(v) != nil || e.isInput[v] {
		return r != 4
	}
	for _, h := range e.held[v] {
		if h.flatCHW == nil {
			return permOrIdentity(h.perm, r)[r-1] == r-1
		}
	}
	return false
}
