package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// writeAtenOps prints the aten operators of torch.onnx's registry (PyTorch
// 1.13, opset 17) with what the TorchScript importer has for each: all of
// them, or the named ones.
func writeAtenOps(w io.Writer, names []string, asJSON bool) error {
	all, err := torchscript.AtenRegistry()
	if err != nil {
		return err
	}
	ops := all
	if len(names) > 0 {
		byName := map[string]torchscript.AtenOp{}
		for _, o := range all {
			byName[o.Name] = o
		}
		ops = nil
		for _, n := range names {
			o, ok := byName[strings.TrimPrefix(n, "aten::")]
			if !ok {
				return usageErrorf("%s is not an operator of torch.onnx's registry (`modelbridge ops --aten` lists them)", n)
			}
			ops = append(ops, o)
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ops)
	}
	rows := [][]string{{"aten op", "torchscript read", "detail"}}
	var handled, lacking, refused, untraced int
	for _, o := range ops {
		cell, detail := "yes", "as torch."+strings.Join(o.Traced, ", torch.")
		switch {
		case o.NotTraced != "":
			cell, detail = "no", "never traced alone: "+o.NotTraced
			untraced++
		case len(o.Missing) > 0:
			cell, detail = "no", "no handler for torch."+strings.Join(o.Missing, ", torch.")
			lacking++
		case o.Refused != "":
			cell, detail = "no", "refused: "+o.Refused
			refused++
		default:
			handled++
		}
		rows = append(rows, []string{o.Name, cell, detail})
	}
	width := [2]int{}
	for _, r := range rows {
		width[0], width[1] = max(width[0], len(r[0])), max(width[1], len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %-*s  %s\n", width[0], r[0], width[1], r[1], r[2])
	}
	fmt.Fprintf(w, "\n%d of torch.onnx's aten operators (PyTorch 1.13, opset 17): %d handled, %d lacking a handler, %d refused, %d never traced alone.\n",
		len(ops), handled, lacking, refused, untraced)
	fmt.Fprintln(w, "A handled operator may still refuse some arguments, saying which; the detail lists each operator's traced form.")
	return nil
}
