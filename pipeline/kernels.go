package pipeline

import (
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// CheckKernelLayout refuses a kernel layout that is not one, and an
// exporter that cannot record it. Only a format that records each
// tensor's layout (safetensors' __metadata__ "layout.<tensor>") can carry
// kernels in another layout: ONNX and MXNet operators require OIHW/IOHW,
// and a PyTorch state dict has no place to declare one, so those are
// refused rather than written with weights their readers would misread.
func CheckKernelLayout(exp *formats.Exporter, to string) error {
	if err := canon.CheckKernelLayout(to); err != nil {
		return Usagef("--kernel-layout %s: %v", to, err)
	}
	if !exp.KernelLayouts {
		return Usagef("--kernel-layout: %s cannot declare a non-canonical kernel layout (its readers expect OIHW for Conv and IOHW for ConvTranspose); write a format that records each tensor's layout (%s), or preview with 'modelbridge layouts MODEL --kernel-layout %s'", exp.Name, strings.Join(KernelLayoutFormats(), ", "), to)
	}
	return nil
}

// ApplyKernelLayout rewrites g's convolution kernels into layout to
// before a weights-only export (convert --kernel-layout).
func ApplyKernelLayout(g *canon.Graph, exp *formats.Exporter, to string) error {
	if err := CheckKernelLayout(exp, to); err != nil {
		return err
	}
	n, err := permuteKernels(g, canon.Layout(to))
	if err != nil {
		return err
	}
	if n == 0 {
		return Usagef("--kernel-layout %s: no convolution kernel in the model has %d spatial axes", to, len(to)-2)
	}
	return nil
}

// permuteKernels replaces every convolution and transposed-convolution
// weight whose axes fit layout to with a permuted copy, records the layout
// in the graph's metadata, and returns how many were changed.
func permuteKernels(g *canon.Graph, to canon.Layout) (int, error) {
	roles := firstRoles(g)
	n := 0
	for i, t := range g.Initializers {
		if r := roles[t.Name]; r != canon.RoleConvWeight && r != canon.RoleDeconvWeight {
			continue
		}
		if _, err := canon.Permutation(t.Layout, to); err != nil {
			continue // another rank (a 1-D kernel when to is 2-D): kept as is
		}
		p, err := canon.PermuteTensor(t, to)
		if err != nil {
			return n, err
		}
		g.Initializers[i] = p
		g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "layout." + t.Name, Value: string(to)})
		n++
	}
	return n, nil
}

// firstRoles maps each value to the role of the first node input slot
// that reads it, in node order.
func firstRoles(g *canon.Graph) map[string]canon.Role {
	roles := map[string]canon.Role{}
	for _, n := range g.Nodes {
		specs := n.Op.Signature().Inputs
		for i, in := range n.Inputs {
			if in == "" || len(specs) == 0 {
				continue
			}
			if _, seen := roles[in]; !seen {
				roles[in] = specs[min(i, len(specs)-1)].Role
			}
		}
	}
	return roles
}

// KernelLayoutFormats lists the exporters that can record a
// non-canonical kernel layout.
func KernelLayoutFormats() []string {
	var out []string
	for _, e := range formats.Exporters() {
		if e.KernelLayouts {
			out = append(out, e.Name)
		}
	}
	return out
}
