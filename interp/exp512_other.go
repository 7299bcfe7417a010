//go:build !amd64

package interp

// The exponential kernels have no vector code here: they compute nothing.

func expVector(dst, src []float64) int                               { return 0 }
func sigmoid64Vector(d, s []float64) int                             { return 0 }
func tanh64Vector(d, s []float64) int                                { return 0 }
func erfVector(d, s []float32) int                                   { return 0 }
func erf64Vector(d, s []float64) int                                 { return 0 }
func sigmoidVector(d, s []float32) int                               { return 0 }
func gelu32Vector(d, s []float32) int                                { return 0 }
func geluTanhVector(d, s []float32) int                              { return 0 }
func softmax64RowVector(row []float64) bool                          { return false }
func softmaxRowVector(dst, src []float32) bool                       { return false }
func softmax4RowsVector(dst, src []float32) bool                     { return false }
func softmaxColsVector(dst, src []float32, base, n, stride int) bool { return false }
func tanhVector(d, s []float32) int                                  { return 0 }
