package torchscript

import (
	"archive/zip"
	"io"
	"strings"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

// FormatName is the name this importer registers, and the SourceFormat of
// the graphs it reads.
const FormatName = "torchscript"

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       FormatName,
		Extensions: []string{".pt", ".pth"},
		Probe:      Probe,
		Read:       readFile,
		Ops:        Coverage,
		SourceOps:  SourceOps,
	})
}

// SourceOps maps each operator the importer reads, as serialized code
// names it (torch.conv2d), to the canonical kinds it becomes.
func SourceOps() map[string][]string {
	out := map[string][]string{}
	for name, e := range opTable {
		if len(e.kinds) > 0 {
			out[name] = e.kinds
		}
	}
	return out
}

// Probe reports whether path is a TorchScript archive: a zip whose one
// top folder holds data.pkl and code/. It reads the zip's central
// directory only (no entry is inflated), and only after the file starts
// like a zip, so it is cheap for any other file.
func Probe(path string) bool {
	f, _, err := regfile.Open(path)
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
	return isTorchScript(zr)
}

// isTorchScript reports whether some folder of the archive holds both
// data.pkl and a code/ entry (torch.save's state dicts have no code/).
func isTorchScript(zr *zip.Reader) bool {
	data, code := map[string]bool{}, map[string]bool{}
	for _, f := range zr.File {
		folder, rest, ok := strings.Cut(f.Name, "/")
		if !ok || folder == "" {
			continue
		}
		switch {
		case rest == "data.pkl":
			data[folder] = true
		case strings.HasPrefix(rest, "code/"):
			code[folder] = true
		}
		if data[folder] && code[folder] {
			return true
		}
	}
	return false
}
