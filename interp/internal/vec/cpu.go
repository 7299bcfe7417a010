package vec

import (
	"os"

	"golang.org/x/sys/cpu"
)

// HasFMA reports that this build has the assembly and the CPU runs its
// AVX2 + FMA3 routines (the operating system saving the YMM registers).
var HasFMA = asmBuild && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// HasAVX512 reports that the AVX-512F routines run here as well (the
// operating system saving the opmask and ZMM registers).
var HasAVX512 = HasFMA && cpu.X86.HasAVX512F

// UseAVX512 selects the AVX-512 routines where a family has both widths;
// MODELBRIDGE_NO_AVX512=1 keeps the AVX2 ones (to compare them, or to
// match a machine without AVX-512). Tests may switch it.
var UseAVX512 = HasAVX512 && os.Getenv("MODELBRIDGE_NO_AVX512") == ""
