//go:build amd64.v3

package vec

// mathFusesMultiplyAdd: this GOAMD64=v3 (or later) build fuses a*b + c.
const mathFusesMultiplyAdd = true
