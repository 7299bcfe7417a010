// Package vec holds the interpreter's vector kernels: one routine family
// a file, each exported routine with one contract on every build.
//
// Every routine computes its whole documented result, the same on every
// build: its pure-Go reference (the *Ref functions beside it) defines the
// result, is what runs without the assembly (another architecture, or the
// noasm build tag, see stubs_noasm.go), and is the oracle the tests hold
// the assembly to, bit for bit. On amd64 the assembly does the whole
// vectors where the CPU has the features (cpu.go) and the reference the
// rest (tails, other CPUs). Routines never decline: a caller that picks an
// algorithm by speed asks HasFMA or UseAVX512, not the routine.
//
// The AVX2 and AVX-512 routines of the exponential family are generated
// from one description by ./gen (go generate ./interp/internal/vec); the
// routines with one width only are written by hand (*_amd64.s).
package vec

//go:generate go run ./gen -out .
