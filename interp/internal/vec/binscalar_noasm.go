//go:build !amd64 || noasm

package vec

// BinScalar is binScalarRef.
func BinScalar(op BinOp, d, a []float32, k float32, left bool) { binScalarRef(op, d, a, k, left) }

// BinRows is binRowsRef.
func BinRows(op BinOp, d, a, b []float32) { binRowsRef(op, d, a, b) }

// BinPerRow is binPerRowRef.
func BinPerRow(op BinOp, d, a, k []float32, n int, left bool) { binPerRowRef(op, d, a, k, n, left) }
