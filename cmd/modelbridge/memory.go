package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/interp"
)

const maxMemoryFlag = "max-memory"

// addMaxMemoryFlag adds --max-memory, the interpreter's memory budget for
// run, check, optimize and convert --optimize (every buffer it allocates,
// random inputs included).
func addMaxMemoryFlag(root *cobra.Command) {
	root.PersistentFlags().String(maxMemoryFlag, "", fmt.Sprintf("most memory the interpreter may allocate, e.g. 512M or 8G (default: half the physical memory, %s here)", humanBytes(interp.DefaultMaxMemory())))
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		s, _ := cmd.Flags().GetString(maxMemoryFlag)
		if s == "" {
			return nil
		}
		n, err := parseSize(s)
		if err != nil {
			return usageErrorf("--%s %s: %v", maxMemoryFlag, s, err)
		}
		interp.MaxMemory = n
		return nil
	}
}

// parseSize reads a byte count with an optional K, M, G or T suffix
// (powers of 1024; a trailing B or iB is allowed).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if k := strings.IndexAny(t, "KMGT"); k >= 0 && k == len(t)-1 {
		mult = int64(1) << (10 * (1 + strings.IndexByte("KMGT", t[k])))
		t = t[:k]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a positive size such as 512M or 8G")
	}
	return int64(v * float64(mult)), nil
}
