package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
)

// layoutsReport is the --json schema of `layouts`. Field names are stable
// (docs/json.md).
type layoutsReport struct {
	File         string        `json:"file"`
	Format       string        `json:"format"`
	KernelLayout string        `json:"kernel_layout,omitempty"`
	Weights      []layoutEntry `json:"weights"`
}

// layoutEntry is one weight: its canonical layout, who uses it, and how
// each framework names and orders it.
type layoutEntry struct {
	Name   string  `json:"name"`
	DType  string  `json:"dtype"`
	Shape  []int64 `json:"shape"`
	Layout string  `json:"layout"`
	// Role is conv_weight, deconv_weight, linear_weight, channel, bias,
	// linear_bias, data or unused.
	Role       string    `json:"role"`
	UsedBy     []string  `json:"used_by"`
	Group      int64     `json:"group,omitempty"`
	Frameworks spellings `json:"frameworks"`
	Preview    *permuted `json:"kernel_layout_preview,omitempty"`
}

// spellings says how ONNX, PyTorch, MXNet and TVM name a weight and order
// its axes.
type spellings struct {
	ONNX    string `json:"onnx"`
	PyTorch string `json:"pytorch"`
	MXNet   string `json:"mxnet"`
	TVM     string `json:"tvm"`
	// TFLite is how TensorFlow Lite stores the weight (OHWI, 1HWO...).
	TFLite string `json:"tflite"`
}

// permuted is a weight's shape in the layout asked for with --kernel-layout.
type permuted struct {
	Layout string  `json:"layout,omitempty"`
	Shape  []int64 `json:"shape,omitempty"`
	Note   string  `json:"note,omitempty"`
}

func newLayoutsCmd() *cobra.Command {
	var rf readFlags
	var asJSON bool
	var kernel string
	cmd := &cobra.Command{
		Use:   "layouts MODEL",
		Short: "List every weight with its canonical layout and each framework's name for it",
		Long: `layouts lists the model's weights: shape, canonical layout (axis letters:
O output channels, I input channels, C channels of a per-channel vector,
D/H/W spatial axes), the nodes that use them, and how ONNX, PyTorch, MXNet
and TVM name and order that weight.

Convolution kernels are OIHW and transposed-convolution kernels IOHW, as in
ONNX, PyTorch and MXNet. Old TVM Relay labelled conv2d_transpose kernels
"OIHW" although their data is IOHW; the listing says so.

--kernel-layout previews the shapes convolution kernels would have in
another layout (the axis order is computed from the letters).`,
		Example: `  modelbridge layouts testdata/tiny_convnet.onnx
  modelbridge layouts testdata/tiny_convnet.onnx --kernel-layout HWIO
  modelbridge layouts model.onnx --json | jq '.weights[] | select(.role=="deconv_weight")'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if kernel != "" {
				if err := canon.CheckKernelLayout(kernel); err != nil {
					return usageErrorf("--kernel-layout %s: %v", kernel, err)
				}
			}
			g, imp, err := rf.load(args[0])
			if err != nil {
				return err
			}
			defer g.Close()
			rep := buildLayoutsReport(args[0], imp.Name, g, canon.Layout(kernel))
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			printLayouts(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	rf.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&kernel, "kernel-layout", "", "preview convolution kernel shapes in this layout (e.g. HWIO, HWOI, OHWI)")
	return cmd
}

// weightUse is one node input slot that reads a weight.
type weightUse struct {
	node *canon.Node
	spec canon.InputSpec
}

func weightUses(g *canon.Graph) map[string][]weightUse {
	uses := map[string][]weightUse{}
	for _, n := range g.Nodes {
		specs := n.Op.Signature().Inputs
		for i, in := range n.Inputs {
			if in == "" || len(specs) == 0 {
				continue
			}
			spec := specs[min(i, len(specs)-1)]
			uses[in] = append(uses[in], weightUse{node: n, spec: spec})
		}
	}
	return uses
}

func buildLayoutsReport(path, format string, g *canon.Graph, kernel canon.Layout) layoutsReport {
	rep := layoutsReport{File: path, Format: format, KernelLayout: string(kernel), Weights: []layoutEntry{}}
	uses := weightUses(g)
	for _, t := range g.Initializers {
		e := layoutEntry{Name: t.Name, DType: t.DType.String(), Shape: t.Shape, Layout: string(t.Layout), Role: "unused", UsedBy: []string{}}
		us := uses[t.Name]
		for _, u := range us {
			e.UsedBy = append(e.UsedBy, nodeTitle(u.node))
		}
		if len(us) > 0 {
			e.Role, e.Group, e.Frameworks = describeUse(g, t, us[0])
			e.Frameworks.TFLite = tfliteSpelling(t, us[0], e.Role, e.Group)
		}
		if kernel != "" && (e.Role == "conv_weight" || e.Role == "deconv_weight") {
			e.Preview = previewKernel(t, kernel)
		}
		rep.Weights = append(rep.Weights, e)
	}
	return rep
}

func nodeTitle(n *canon.Node) string {
	if n.Name == "" {
		return n.Op.Kind()
	}
	return n.Name + " (" + n.Op.Kind() + ")"
}

// previewKernel gives the shape t would have in layout to, or says why the
// layout does not apply (a 2-D layout for a 1-D kernel).
func previewKernel(t *canon.Tensor, to canon.Layout) *permuted {
	perm, err := canon.Permutation(t.Layout, to)
	if err != nil {
		return &permuted{Note: fmt.Sprintf("kept as %s: %s does not fit a %d-D kernel", t.Layout, to, len(t.Shape))}
	}
	shape := make([]int64, len(perm))
	for i, p := range perm {
		shape[i] = t.Shape[p]
	}
	return &permuted{Layout: string(to), Shape: shape}
}

// spatialNames returns the kernel axis names for n spatial axes in the
// style of a framework's documentation.
func spatialNames(n int, upper bool) string {
	names := map[int]string{1: "kW", 2: "kH, kW", 3: "kD, kH, kW"}[n]
	if names == "" {
		names = "k..."
	}
	if !upper {
		names = strings.ToLower(names)
	}
	return names
}

// describeUse names the weight's role and its spelling in each framework,
// from the first node that reads it.
func describeUse(g *canon.Graph, t *canon.Tensor, u weightUse) (string, int64, spellings) {
	kind := u.node.Op.Kind()
	nsp := len(t.Shape) - 2
	sp, spl := spatialNames(nsp, true), spatialNames(nsp, false)
	dim := fmt.Sprintf("%dd", max(nsp, 1))
	switch u.spec.Role {
	case canon.RoleConvWeight:
		group := int64(1)
		if c, ok := u.node.Op.(*canon.Conv); ok {
			group = c.Group
		}
		return "conv_weight", group, spellings{
			ONNX:    "Conv W (M, C/group, " + sp + ")",
			PyTorch: "Conv" + dim + ".weight (out_channels, in_channels/groups, " + sp + ")",
			MXNet:   "Convolution weight (num_filter, C/num_group, " + spl + ")",
			TVM:     fmt.Sprintf("nn.conv%s kernel_layout=%q", dim, t.Layout),
		}
	case canon.RoleDeconvWeight:
		group := int64(1)
		if c, ok := u.node.Op.(*canon.ConvTranspose); ok {
			group = c.Group
		}
		return "deconv_weight", group, spellings{
			ONNX:    "ConvTranspose W (C, M/group, " + sp + ")",
			PyTorch: "ConvTranspose" + dim + ".weight (in_channels, out_channels/groups, " + sp + ")",
			MXNet:   "Deconvolution weight (C_in, num_filter/num_group, " + spl + ")",
			TVM: fmt.Sprintf("nn.conv%s_transpose kernel_layout=%q; Relay before apache/tvm#9336 (2021) labelled it %q for the same data",
				dim, t.Layout, oldRelayLabel(t)),
		}
	case canon.RoleLinearWeight:
		return "linear_weight", 0, spellings{
			ONNX:    "Gemm B (N, K) with transB=1; MatMul B is (K, N)",
			PyTorch: "Linear.weight (out_features, in_features)",
			MXNet:   "FullyConnected weight (num_hidden, input_dim)",
			TVM:     "nn.dense weight (units, input_dim)",
		}
	case canon.RoleChannel:
		slots := map[string][4]string{
			"Scale": {"scale", "weight", "gamma", "gamma"},
			"Bias":  {"B", "bias", "beta", "beta"},
			"Mean":  {"input_mean", "running_mean", "moving_mean", "moving_mean"},
			"Var":   {"input_var", "running_var", "moving_var", "moving_var"},
		}
		s := slots[u.spec.Name]
		bn := "BatchNorm2d"
		if x, ok := g.Values.Lookup(u.node.Inputs[0]); ok && x.RankKnown && len(x.Shape) >= 2 && len(x.Shape) <= 5 {
			bn = fmt.Sprintf("BatchNorm%dd", max(len(x.Shape)-2, 1))
		}
		return "channel", 0, spellings{
			ONNX:    "BatchNormalization " + s[0] + " (C)",
			PyTorch: bn + "." + s[1] + " (num_features)",
			MXNet:   "BatchNorm " + s[2] + " (C)",
			TVM:     "nn.batch_norm " + s[3] + " (C)",
		}
	case canon.RoleBias:
		if kind == "ConvTranspose" {
			return "bias", 0, spellings{
				ONNX:    "ConvTranspose B (M)",
				PyTorch: "ConvTranspose" + convDims(g, u.node) + ".bias (out_channels)",
				MXNet:   "Deconvolution bias (num_filter)",
				TVM:     "nn.bias_add after nn.conv" + convDims(g, u.node) + "_transpose (axis=1)",
			}
		}
		return "bias", 0, spellings{
			ONNX:    kind + " B (M)",
			PyTorch: "Conv" + convDims(g, u.node) + ".bias (out_channels)",
			MXNet:   "Convolution bias (num_filter)",
			TVM:     "nn.bias_add after nn.conv" + convDims(g, u.node) + " (axis=1)",
		}
	}
	if op, ok := u.node.Op.(canon.RecurrentOp); ok && (u.spec.Role == canon.RoleGateWeight || u.spec.Role == canon.RoleGateVector) {
		return recurrentSpellings(op, u.spec.Name)
	}
	if kind == "Linear" && u.spec.Name == "C" {
		return "linear_bias", 0, spellings{
			ONNX:    "Gemm C (N)",
			PyTorch: "Linear.bias (out_features)",
			MXNet:   "FullyConnected bias (num_hidden)",
			TVM:     "nn.bias_add after nn.dense",
		}
	}
	return "data", 0, spellings{
		ONNX:    kind + " input " + u.spec.Name,
		PyTorch: "-",
		MXNet:   "-",
		TVM:     "-",
	}
}

// convDims is "1d", "2d" or "3d" from a convolution's weight rank.
func convDims(g *canon.Graph, n *canon.Node) string {
	if len(n.Inputs) > 1 {
		if w, ok := g.Values.Lookup(n.Inputs[1]); ok && w.RankKnown && len(w.Shape) >= 3 {
			return fmt.Sprintf("%dd", len(w.Shape)-2)
		}
	}
	return "2d"
}

func printLayouts(w io.Writer, r layoutsReport) {
	fmt.Fprintf(w, "%s (%s): %d weights\n", r.File, r.Format, len(r.Weights))
	for _, e := range r.Weights {
		layout := e.Layout
		if layout == "" {
			layout = "-"
		}
		fmt.Fprintf(w, "\n%s  %s %v  %s  %s", e.Name, e.DType, e.Shape, layout, e.Role)
		if e.Group > 1 {
			fmt.Fprintf(w, " (group %d)", e.Group)
		}
		fmt.Fprintln(w)
		if len(e.UsedBy) > 0 {
			fmt.Fprintf(w, "  used by  %s\n", strings.Join(e.UsedBy, ", "))
		}
		if e.Role == "unused" {
			continue
		}
		f := e.Frameworks
		for _, row := range [][2]string{{"ONNX", f.ONNX}, {"PyTorch", f.PyTorch}, {"MXNet", f.MXNet}, {"TVM", f.TVM}, {"TFLite", f.TFLite}} {
			if row[1] != "-" {
				fmt.Fprintf(w, "  %-8s %s\n", row[0], row[1])
			}
		}
		if p := e.Preview; p != nil {
			if p.Note != "" {
				fmt.Fprintf(w, "  %-8s %s\n", r.KernelLayout, p.Note)
			} else {
				fmt.Fprintf(w, "  %-8s %v\n", r.KernelLayout, p.Shape)
			}
		}
	}
}

// oldRelayLabel is the layout old TVM Relay gave a transposed-convolution
// kernel: the convolution layout of the same rank, for IOHW data.
func oldRelayLabel(t *canon.Tensor) canon.Layout {
	l, _ := canon.LayoutFor(canon.RoleConvWeight, len(t.Shape))
	return l
}

// recurrentSpellings names a recurrent weight (DGI or DG, gates in the
// canonical ONNX order) in each framework, with the gate order each uses.
func recurrentSpellings(op canon.RecurrentOp, slot string) (string, int64, spellings) {
	orders := map[string][2]string{"LSTM": {"i, o, f, c", "i, f, g, o"}, "GRU": {"z, r, h", "r, z, n"}, "RNN": {"one", "one"}}[op.Kind()]
	onnxOrder, torchOrder := orders[0], orders[1]
	torchName := map[string]string{"W": "weight_ih_l{k}[_reverse] (gates·hidden, input)", "R": "weight_hh_l{k}[_reverse] (gates·hidden, hidden)",
		"B": "bias_ih_l{k} + bias_hh_l{k} (gates·hidden each)", "P": "- (no peepholes)"}[slot]
	mx := map[string]string{"W": "i2h_weight, packed in RNN parameters", "R": "h2h_weight, packed in RNN parameters",
		"B": "i2h_bias + h2h_bias, packed after every weight in RNN parameters", "P": "- (no peepholes)"}[slot]
	return "recurrent_" + strings.ToLower(slot), 0, spellings{
		ONNX:    fmt.Sprintf("%s %s (num_directions, ...), gates %s", op.Kind(), slot, onnxOrder),
		PyTorch: fmt.Sprintf("nn.%s.%s, gates %s", op.Kind(), torchName, torchOrder),
		MXNet:   mx + ", gates " + torchOrder,
		TVM:     "-",
	}
}
