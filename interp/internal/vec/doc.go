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
// Where a routine has both an AVX2 and an AVX-512 form (the exponential,
// panel, GEMM micro-kernel, depthwise-taps and scalar-operand families),
// both are generated from one description by ./gen: after changing it, run
//
//	go generate ./interp/internal/vec
//
// which rewrites exp_*_amd64.s, panel_*_amd64.s, gemm_*_amd64.s,
// dwtaps_*_amd64.s and binscalar_*_amd64.s (marked DO NOT EDIT); go test
// ./interp/internal/vec/gen fails when they differ from what the generator
// writes, or when an AVX2 file uses anything of AVX-512. The other
// *_amd64.s files are written by hand: routines with one width only (dot
// products, row epilogues and pool steps, Winograd transforms in AVX2;
// tile epilogues, GEMM columns, depthwise and pool planes, the depthwise
// plane copies, the two-tap resize row and 16×16 transposes in
// AVX-512).
//
// Files: one routine family each, its references in family.go (every
// build), its amd64 entry points in family_amd64.go, its assembly in
// family*_amd64.s; stubs_amd64.go declares the assembly routines and
// stubs_noasm.go maps every entry point to its reference.
package vec

//go:generate go run ./gen -out .
