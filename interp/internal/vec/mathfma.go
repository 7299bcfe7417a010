//go:build !amd64.v3

package vec

// mathFusesMultiplyAdd reports whether this build compiles a*b + c in Go
// code (the standard library's math included) to one fused multiply-add:
// GOAMD64=v3 and up do. Kernels that repeat math's operations unfused
// serve only where it is false.
const mathFusesMultiplyAdd = false
