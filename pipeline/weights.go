package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// BindReport lists how a weights file matched a model's initializers.
type BindReport struct {
	Replaced []string
	// Missing are model initializers the weights file does not provide.
	Missing []string
	// Extra are weights the model has no initializer for.
	Extra []string
	// Mismatched are names present in both with another dtype or shape.
	Mismatched []string
	// Ignored are training-only buffers (BatchNorm's num_batches_tracked)
	// that inference graphs drop; they never count as extra.
	Ignored []string
}

// Complete reports whether every name matched exactly.
func (r *BindReport) Complete() bool {
	return len(r.Missing) == 0 && len(r.Extra) == 0 && len(r.Mismatched) == 0
}

// Write prints the report as convert --weights shows it.
func (r *BindReport) Write(w io.Writer) {
	fmt.Fprintf(w, "weights: replaced %d initializers", len(r.Replaced))
	if len(r.Ignored) > 0 {
		fmt.Fprintf(w, " (ignored %d training counters: %s)", len(r.Ignored), strings.Join(r.Ignored, ", "))
	}
	if r.Complete() {
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "; %d missing, %d extra, %d mismatched\n", len(r.Missing), len(r.Extra), len(r.Mismatched))
	for _, l := range []struct {
		what  string
		names []string
	}{{"missing from the weights file (kept from the model)", r.Missing}, {"in the weights file but not in the model", r.Extra}, {"with another shape or dtype (kept from the model)", r.Mismatched}} {
		if len(l.names) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", l.what, strings.Join(l.names, ", "))
		}
	}
}

// BindWeights replaces g's initializers by name with those of weights (a
// weights-only graph, e.g. a PyTorch state dict: torch.onnx keeps
// state-dict names). Names must match with equal dtype and shape. Unless
// allowPartial, any missing, extra or mismatched name is an error and g is
// left unchanged. Replaced tensors keep the model's layout. g takes data
// that may point into weights' file mapping: keep weights open while g is
// used.
func BindWeights(g, weights *canon.Graph, allowPartial bool) (*BindReport, error) {
	rep := &BindReport{}
	have := weights.InitializerIndex()
	used := map[string]bool{}
	replace := map[int]*canon.Tensor{}
	for i, t := range g.Initializers {
		w := have[t.Name]
		if w == nil {
			rep.Missing = append(rep.Missing, t.Name)
			continue
		}
		used[t.Name] = true
		if w.DType != t.DType || !slices.Equal(w.Shape, t.Shape) {
			rep.Mismatched = append(rep.Mismatched, fmt.Sprintf("%s (model %s%v, weights %s%v)", t.Name, t.DType, t.Shape, w.DType, w.Shape))
			continue
		}
		replace[i] = &canon.Tensor{Name: t.Name, DType: t.DType, Shape: t.Shape, Layout: t.Layout, Data: w.Data}
		rep.Replaced = append(rep.Replaced, t.Name)
	}
	for _, w := range weights.Initializers {
		if !used[w.Name] && strings.HasSuffix(w.Name, "num_batches_tracked") {
			rep.Ignored = append(rep.Ignored, w.Name)
		} else if !used[w.Name] {
			rep.Extra = append(rep.Extra, w.Name)
		}
	}
	if !rep.Complete() && !allowPartial {
		var parts []string
		for _, l := range []struct {
			what  string
			names []string
		}{{"missing from the weights", rep.Missing}, {"not in the model", rep.Extra}, {"shape/dtype differs", rep.Mismatched}} {
			if len(l.names) > 0 {
				parts = append(parts, fmt.Sprintf("%d %s (%s)", len(l.names), l.what, someNames(l.names, 4)))
			}
		}
		return rep, fmt.Errorf("the weights do not match the model: %s; %d names match (pass --allow-partial to bind only those; `modelbridge inspect` of each file lists every name)", strings.Join(parts, "; "), len(rep.Replaced))
	}
	if len(rep.Replaced) == 0 {
		return rep, fmt.Errorf("no weight name matches a model initializer; nothing to bind")
	}
	for i, t := range replace {
		g.Initializers[i] = t
	}
	// Shape inference cached constants that may derive from old weights.
	if g.Values != nil {
		if err := g.Infer(); err != nil {
			return rep, fmt.Errorf("after binding weights: %w", err)
		}
	}
	return rep, nil
}

// LoadWeights reads a weights file of any registered format; key picks
// the state dict inside a checkpoint.
func LoadWeights(path, key string) (*canon.Graph, error) {
	w, _, err := formats.Read(path, "", formats.ReadOptions{Key: key})
	return w, err
}

// someNames lists the first n names, then how many more there are, so
// that a mismatch of a large model stays readable on one line.
func someNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
