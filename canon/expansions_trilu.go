package canon

// triluExpand writes Trilu as Where(mask, x, 0) with mask the constant
// triangle of the last two axes: it needs x's static shape and the
// diagonal as an attribute (a run-time k gives no constant mask).
func triluExpand(e *Expander) error {
	op := e.Node.Op.(*Trilu)
	if e.Input(1) != "" {
		return e.Errorf("the expansion needs the diagonal k as an attribute, not a run-time input")
	}
	shape, dt := e.Shape(0), e.DType(0)
	if len(shape) < 2 || dt == Undefined || dt.Size() == 0 {
		return e.Errorf("the expansion needs input %q's static shape (rank 2 or more) and dtype; give the inputs full shapes", e.Input(0))
	}
	rows, cols := shape[len(shape)-2], shape[len(shape)-1]
	mask := &Tensor{DType: Bool, Shape: []int64{rows, cols}, Data: make([]byte, rows*cols)}
	for i := range rows {
		for j := range cols {
			if d := j - i; (op.Upper && d >= op.K) || (!op.Upper && d <= op.K) {
				mask.Data[i*cols+j] = 1
			}
		}
	}
	zero := &Tensor{DType: dt, Shape: []int64{}, Data: make([]byte, dt.Size())}
	e.Add(&Where{}, []string{e.Const(mask), e.Input(0), e.Const(zero)}, e.Output(0))
	return nil
}
