package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/optimize"
)

// flagHint adds to a flag parsing error the nearest flag c has ("unknown
// flag: --opest; did you mean --opset?"), and says what -v is where it is
// not defined.
func flagHint(c *cobra.Command, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		return fmt.Sprintf("; -v is --verbose, which '%s' does not have (convert and optimize do)", c.CommandPath())
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	if best := nearestFlag(c, name); best != "" {
		return "; did you mean --" + best + "?"
	}
	return ""
}

// nearestFlag is the flag of c (own or inherited) closest to name, or ""
// when none is close: within a third of the name's length, counting a swap
// of neighbours as one edit and '_' as '-'.
func nearestFlag(c *cobra.Command, name string) string {
	typed := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	best, bestDist := "", len(typed)/3+1
	if bestDist < 2 {
		bestDist = 2
	}
	bestDist++ // strictly less than this wins
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(typed, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the optimal-string-alignment distance between a and b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// flagValues are the values completion offers for flags with a fixed set.
func flagValues() map[string][]string {
	return map[string][]string{
		"to":     formats.ExporterNames(),
		"from":   formats.ImporterNames(),
		"passes": optimize.PassNames(),
		"opset":  opsetValues(),
	}
}

// opsetValues are "auto" and every opset an exporter writes.
func opsetValues() []string {
	values := []string{"auto"}
	for _, e := range formats.Exporters() {
		if r := e.Opsets; r.Has() {
			for v := r.Max; v >= r.Min; v-- {
				values = append(values, fmt.Sprint(v))
			}
			break
		}
	}
	return values
}

// registerFlagCompletions makes shell completion offer flagValues on every
// command that has those flags, and keeps -v for --verbose rather than
// --version (which stays available by its long name).
func registerFlagCompletions(root *cobra.Command) {
	root.Flags().Bool("version", false, "print the modelbridge version")
	values := flagValues()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, vals := range values {
			if c.LocalFlags().Lookup(name) == nil {
				continue
			}
			vals := vals
			_ = c.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
				return vals, cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
