package pt2

import (
	"archive/zip"
	"io"
	"os"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       FormatName,
		Extensions: []string{".pt2"},
		Probe:      Probe,
		Read:       Read,
		Ops:        Coverage,
	})
}

// Probe reports whether path is a torch.export archive: a zip holding
// serialized_exported_program.json (or the archive_format marker of the
// newer package layout, which Read refuses with advice). It reads the
// zip's central directory only.
func Probe(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != "PK\x03\x04" {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return false
	}
	_, layout := programPrefix(zr)
	return layout != layoutNone
}

// Coverage is the TorchScript importer's: both front ends run the same
// aten handlers. Control flow differs: a program's higher-order operators
// (higher_order.go) make If, Loop and Scan.
func Coverage() canon.Coverage {
	cov := torchscript.Coverage()
	cov["If"] = canon.Handles("torch.cond on a bool tensor or a comparison of sizes")
	cov["Loop"] = canon.Handles("torch.while_loop (carried tensors and additional inputs; no trip count)")
	cov["Scan"] = canon.Handles("torch._higher_order_ops.map (map_impl) over the leading axis")
	return cov
}
