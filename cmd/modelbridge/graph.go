package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/graphdraw"
	"github.com/modelbridge/modelbridge/pipeline"
)

func newGraphCmd() *cobra.Command {
	var rf readFlags
	var out, format, diff, layout string
	cmd := &cobra.Command{
		Use:   "graph MODEL [-o out.svg|out.dot|out.html|out.png|out.pdf]",
		Short: "Draw the model's graph (DOT, SVG or a zoomable HTML page), optionally as a diff",
		Long: `graph draws MODEL: one box per op with its key attributes (kernel, strides,
pads, group, axis, perm, ...), the weights it reads with their shapes and
layouts (W conv1.weight f32[8 4 3 3] OIHW), and its output shapes.

The format comes from the output's extension or --format:
  .dot   Graphviz source, always available
  .svg   drawn by Graphviz ('dot' must be installed; or --layout builtin)
  .html  one self-contained page, zoom with the wheel and pan by dragging;
         drawn by Graphviz when installed, else by the built-in layout
  .png, .pdf  drawn by Graphviz ('dot' must be installed)
Without -o, DOT goes to stdout.

--diff OTHER draws MODEL and OTHER together (say, a model and its optimized
version): red dashed = only in MODEL (removed), green = only in OTHER
(added), orange = in both but with other attributes, inputs or weights.
Nodes are paired by name, then by op kind and inputs.`,
		Example: `  modelbridge graph testdata/tiny_convnet.onnx -o tiny.svg
  modelbridge graph model.onnx -o model.html
  modelbridge graph model.onnx | dot -Tpng > model.png
  modelbridge optimize model.onnx opt.onnx && modelbridge graph model.onnx --diff opt.onnx -o diff.svg`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "" {
				format = formatFromName(out)
			}
			switch format {
			case "dot", "svg", "html", "png", "pdf":
			case "":
				return usageErrorf("cannot tell the picture format of %s; use a .dot, .svg, .html, .png or .pdf name, or --format", out)
			default:
				return usageErrorf("--format %s: want dot, svg, html, png or pdf", format)
			}
			if layout != "auto" && layout != "graphviz" && layout != "builtin" {
				return usageErrorf("--layout %s: want auto, graphviz or builtin", layout)
			}
			g, _, err := rf.load(args[0])
			if err != nil {
				return err
			}
			defer g.Close()
			if pipeline.IsWeightsOnly(g) {
				return fmt.Errorf("%s holds only weights (%d tensors, no graph): there is nothing to draw; 'modelbridge inspect %s' lists the tensors", args[0], len(g.Initializers), args[0])
			}
			var d *graphdraw.Drawing
			var other *canon.Graph
			if diff != "" {
				var rfB readFlags
				rfB.inputShapes, rfB.inputTypes, rfB.ignoreCRC = rf.inputShapes, rf.inputTypes, rf.ignoreCRC
				other, _, err = rfB.load(diff)
				if err != nil {
					return err
				}
				defer other.Close()
				d = graphdraw.Diff(g, other)
				d.Title = fmt.Sprintf("%s vs %s", filepath.Base(args[0]), filepath.Base(diff))
			} else {
				d = graphdraw.FromGraph(g)
				d.Title = graphTitle(args[0], g)
			}
			data, how, err := renderDrawing(cmd, d, format, layout)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			inputs := pipeline.InputParts(args[0], g)
			if other != nil {
				inputs = append(inputs, pipeline.InputParts(diff, other)...)
			}
			if err := pipeline.RefuseOverwriting([]string{out}, inputs, "the models drawn"); err != nil {
				return err
			}
			if err := writeAtomically(out, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s%s)\n", out, how, diffSummary(d))
			return nil
		},
	}
	rf.register(cmd)
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "picture to write: .dot, .svg, .html, .png or .pdf (default: DOT on stdout)")
	f.StringVar(&format, "format", "", "dot, svg, html, png or pdf (default: from the output's extension)")
	f.StringVar(&diff, "diff", "", "a second model (e.g. the optimized one) to compare with: colours what was removed, added or changed")
	f.StringVar(&layout, "layout", "auto", "who places the boxes for svg/html: graphviz, builtin, or auto (graphviz when installed)")
	return cmd
}

func formatFromName(path string) string {
	if path == "" || path == "-" {
		return "dot"
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dot", ".gv":
		return "dot"
	case ".svg":
		return "svg"
	case ".html", ".htm":
		return "html"
	case ".png":
		return "png"
	case ".pdf":
		return "pdf"
	}
	return ""
}

func graphTitle(path string, g *canon.Graph) string {
	if g.Name != "" {
		return filepath.Base(path) + " (" + g.Name + ")"
	}
	return filepath.Base(path)
}

// renderDrawing produces the file's bytes and says how they were made.
func renderDrawing(cmd *cobra.Command, d *graphdraw.Drawing, format, layout string) ([]byte, string, error) {
	var dotSrc bytes.Buffer
	if err := graphdraw.WriteDOT(&dotSrc, d); err != nil {
		return nil, "", err
	}
	if format == "dot" {
		return dotSrc.Bytes(), "Graphviz DOT", nil
	}
	if format == "png" || format == "pdf" {
		// Only Graphviz draws these; the built-in layout writes SVG.
		dotPath, err := graphdraw.FindDot()
		if err != nil {
			return nil, "", fmt.Errorf("%w; a .%s picture needs Graphviz", err, format)
		}
		pic, err := graphdraw.DotRender(cmd.Context(), dotPath, dotSrc.Bytes(), format)
		if err != nil {
			return nil, "", err
		}
		return pic, strings.ToUpper(format) + ", laid out by Graphviz", nil
	}
	var svg []byte
	how := ""
	dotPath, err := graphdraw.FindDot()
	switch {
	case layout == "builtin" || (layout == "auto" && format == "html" && err != nil):
		var b bytes.Buffer
		if err := graphdraw.WriteSVG(&b, d); err != nil {
			return nil, "", err
		}
		svg, how = b.Bytes(), "built-in layout"
	case err != nil:
		if errors.Is(err, graphdraw.ErrNoGraphviz) {
			return nil, "", fmt.Errorf("%w, or use --layout builtin", err)
		}
		return nil, "", err
	default:
		svg, err = graphdraw.DotToSVG(cmd.Context(), dotPath, dotSrc.Bytes())
		if err != nil {
			return nil, "", err
		}
		how = "laid out by Graphviz"
	}
	if format == "svg" {
		return svg, "SVG, " + how, nil
	}
	var page bytes.Buffer
	if err := graphdraw.WriteHTML(&page, d, svg); err != nil {
		return nil, "", err
	}
	return page.Bytes(), "HTML, " + how, nil
}

func diffSummary(d *graphdraw.Drawing) string {
	if !d.Diff {
		return fmt.Sprintf(", %d boxes", len(d.Boxes))
	}
	var n [4]int
	for _, b := range d.Boxes {
		n[b.Status]++
	}
	return fmt.Sprintf("; %d removed, %d added, %d changed, %d unchanged", n[graphdraw.Removed], n[graphdraw.Added], n[graphdraw.Changed], n[graphdraw.Same])
}

// writeAtomically replaces path with data, or leaves it untouched on error.
func writeAtomically(path string, data []byte) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Commit()
}
