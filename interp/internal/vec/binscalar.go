package vec

// Scalar-operand family: a float32 row combined with one value, d[i] =
// a[i] ∘ k (or k ∘ a[i]), or with another row, d[i] = a[i] ∘ b[i], ∘ one of BinAdd, BinSub, BinMul, BinDiv: one IEEE
// float32 operation an element, so every build gives the same bits.

// BinOp names the operation of BinScalar.
type BinOp int

const (
	BinAdd BinOp = iota
	BinSub
	BinMul
	BinDiv
)

// binScalarRef sets d[i] = a[i] ∘ k, or k ∘ a[i] when left.
func binScalarRef(op BinOp, d, a []float32, k float32, left bool) {
	a = a[:len(d)]
	for i, v := range a {
		x, y := v, k
		if left {
			x, y = k, v
		}
		switch op {
		case BinAdd:
			d[i] = x + y
		case BinSub:
			d[i] = x - y
		case BinMul:
			d[i] = x * y
		case BinDiv:
			d[i] = x / y
		}
	}
}

// binRowsRef sets d[i] = a[i] ∘ b[i].
func binRowsRef(op BinOp, d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		switch op {
		case BinAdd:
			d[i] = a[i] + b[i]
		case BinSub:
			d[i] = a[i] - b[i]
		case BinMul:
			d[i] = a[i] * b[i]
		case BinDiv:
			d[i] = a[i] / b[i]
		}
	}
}

// binPerRowRef is BinScalar on each row r of n floats with k[r].
func binPerRowRef(op BinOp, d, a, k []float32, n int, left bool) {
	for r, kv := range k {
		BinScalar(op, d[r*n:(r+1)*n], a[r*n:(r+1)*n], kv, left)
	}
}
