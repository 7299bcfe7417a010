package pt2

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Entry names of a torch.export.save archive (torch 2.1 to 2.6).
const (
	programEntry   = "serialized_exported_program.json"
	stateDictEntry = "serialized_state_dict.pt"
	constantsEntry = "serialized_constants.pt"
	versionEntry   = "version"
)

// maxJSONBytes bounds the program's JSON: graphs of hundreds of thousands
// of nodes stay far below it.
const maxJSONBytes = 1 << 28

// maxDeflateRatio bounds how much a deflated entry may claim to expand
// (DEFLATE cannot exceed about 1032:1).
const maxDeflateRatio = 1032

// archive is the outer zip: stored entries are sliced from data (the
// mapped file) without copying, deflated ones are inflated within bounds.
type archive struct {
	path    string
	data    []byte
	prefix  string // "" or "<folder>/" when the entries lie in one folder
	entries map[string]*zip.File
}

func openArchive(path string, data []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable zip archive (%v); the file is truncated or not a .pt2 file", path, err)
	}
	a := &archive{path: path, data: data, entries: map[string]*zip.File{}}
	for _, f := range zr.File {
		a.entries[f.Name] = f
	}
	prefix, layout := programPrefix(zr)
	switch layout {
	case layoutExport:
		a.prefix = prefix
	case layoutPackage:
		return nil, fmt.Errorf("%s: a PT2 archive in the torch.export package layout of PyTorch 2.7 and later (%smodels/*.json); this importer reads the torch.export.save layout of PyTorch 2.1 to 2.6 (serialized_exported_program.json). Save with torch.export.save from PyTorch 2.6, or export to ONNX", path, prefix)
	default:
		return nil, fmt.Errorf("%s: a zip without %s: not a program torch.export.save wrote", path, programEntry)
	}
	return a, nil
}

type archiveLayout int

const (
	layoutNone archiveLayout = iota
	layoutExport
	layoutPackage
)

// programPrefix finds the program entry at the top or in one folder, or
// the archive_format marker of the newer package layout.
func programPrefix(zr *zip.Reader) (string, archiveLayout) {
	for _, f := range zr.File {
		dir, base := "", f.Name
		if i := strings.LastIndexByte(f.Name, '/'); i >= 0 {
			dir, base = f.Name[:i+1], f.Name[i+1:]
		}
		if strings.Count(dir, "/") > 1 {
			continue
		}
		switch base {
		case programEntry:
			return dir, layoutExport
		case "archive_format":
			return dir, layoutPackage
		}
	}
	return "", layoutNone
}

// has reports whether the archive holds entry name.
func (a *archive) has(name string) bool {
	_, ok := a.entries[a.prefix+name]
	return ok
}

// read returns entry name's bytes, refusing more than limit.
func (a *archive) read(name string, limit uint64) ([]byte, error) {
	f, ok := a.entries[a.prefix+name]
	if !ok {
		return nil, fmt.Errorf("%s: missing entry %s%s", a.path, a.prefix, name)
	}
	size := f.UncompressedSize64
	if size > limit {
		return nil, fmt.Errorf("%s: entry %s%s declares %d bytes, more than the %d this importer reads", a.path, a.prefix, name, size, limit)
	}
	switch f.Method {
	case zip.Store:
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s%s: %v", a.path, a.prefix, name, err)
		}
		if f.CompressedSize64 != size || off < 0 || off > int64(len(a.data)) || size > uint64(int64(len(a.data))-off) {
			return nil, fmt.Errorf("%s: entry %s%s runs past the end of the file (truncated?)", a.path, a.prefix, name)
		}
		return a.data[off : off+int64(size) : off+int64(size)], nil
	case zip.Deflate:
		if size/maxDeflateRatio > f.CompressedSize64+1 || f.CompressedSize64 > uint64(len(a.data)) {
			return nil, fmt.Errorf("%s: entry %s%s declares %d bytes from %d compressed: corrupt", a.path, a.prefix, name, size, f.CompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s%s: %v", a.path, a.prefix, name, err)
		}
		defer rc.Close()
		buf := make([]byte, size)
		if _, err := io.ReadFull(rc, buf); err != nil {
			return nil, fmt.Errorf("%s: entry %s%s: cannot decompress: %v", a.path, a.prefix, name, err)
		}
		return buf, nil
	}
	return nil, fmt.Errorf("%s: entry %s%s uses zip compression method %d; only stored and deflated entries are supported", a.path, a.prefix, name, f.Method)
}
