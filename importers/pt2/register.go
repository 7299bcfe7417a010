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
// aten handlers. Control flow is the exception: scripted code's if and
// loops become If and Loop, a program's higher-order operators do not.
func Coverage() canon.Coverage {
	cov := torchscript.Coverage()
	for _, kind := range []string{"If", "Loop"} {
		cov[kind] = canon.Lacks("higher-order operators (torch.cond, torch.while_loop, map) are not read yet: export the model to ONNX")
	}
	return cov
}
