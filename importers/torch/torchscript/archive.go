package torchscript

import (
	"archive/zip"
	"fmt"
	"io"
	"strings"

	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
)

// archive gives access to the entries of one TorchScript zip. Every entry
// lives under a single top-level folder whose name need not match the file
// name (torch.jit.save names it after the file stem, but files get renamed).
type archive struct {
	path    string
	prefix  string // "<folder>/"
	entries map[string]*zip.File
	// mapped is the whole file, mapped read-only (or nil when mapping
	// failed); stored entries are sliced from it without copying.
	mapped []byte
	// own is the mapping this archive made itself and releases on Close;
	// it is nil when mapped belongs to the caller (the torch importer).
	own *mmapfile.Mapping
	// counted lists the entries read so far; their size is the measure of
	// the file that bounds the tensor data an import may make (data), so
	// that a small hostile archive cannot expand into gigabytes through
	// broadcast views or repeated weights.
	counted map[string]bool
	data    databudget.Budget
}

// fits reports an error when n more bytes of tensor data would exceed
// what the archive's size allows; what names the tensor. The error does
// not name the file: callers add it.
func (a *archive) fits(what string, n int64) error {
	if !a.data.Fits(n) {
		return fmt.Errorf("%s would bring the tensor data to more than %d bytes, %d times what the archive's entries hold: the archive is corrupt or hostile; refusing", what, a.data.Limit, databudget.PerInputByte)
	}
	return nil
}

// charge counts n bytes of tensor data the import made.
func (a *archive) charge(what string, n int64) error {
	if err := a.fits(what, n); err != nil {
		return err
	}
	a.data.Used += n
	return nil
}

// maxDeflateRatio bounds how much a deflated entry may claim to expand:
// deflate cannot exceed about 1032:1, so a larger claim is a corrupt or
// hostile header.
const maxDeflateRatio = 1100

// openArchive indexes zr. data, when not nil, is the whole file that zr
// reads, owned by the caller; otherwise the file is mapped here.
func openArchive(zr *zip.Reader, path string, data []byte) (*archive, error) {
	a := &archive{path: path, entries: map[string]*zip.File{}, counted: map[string]bool{}, data: databudget.ForInput(0)}
	for _, f := range zr.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue
		}
		i := strings.IndexByte(name, '/')
		if i <= 0 {
			continue
		}
		if rest := name[i+1:]; rest == "data.pkl" || rest == "constants.pkl" || strings.HasPrefix(rest, "code/") {
			p := name[:i+1]
			if a.prefix != "" && a.prefix != p {
				return nil, fmt.Errorf("%s: the archive holds two TorchScript folders (%s and %s); it is not one torch.jit.save file", path, strings.TrimSuffix(a.prefix, "/"), strings.TrimSuffix(p, "/"))
			}
			a.prefix = p
		}
	}
	if a.prefix == "" {
		return nil, fmt.Errorf("%s: not a TorchScript archive (no <folder>/data.pkl and <folder>/code/); if it is a torch.save file, read it as a state dict", path)
	}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, a.prefix) {
			a.entries[f.Name[len(a.prefix):]] = f
		}
	}
	if _, ok := a.entries["data.pkl"]; !ok {
		return nil, fmt.Errorf("%s: TorchScript archive has no %sdata.pkl (the module's attributes and weights); the file is incomplete", path, a.prefix)
	}
	if !a.hasCodeFolder() {
		return nil, fmt.Errorf("%s: not a TorchScript archive (%s has no code/ folder); it looks like a torch.save file: read it with --from torch", path, strings.TrimSuffix(a.prefix, "/"))
	}
	if data != nil {
		a.mapped = data
	} else if m, err := mmapfile.Open(path); err == nil {
		a.mapped, a.own = m.Data, m
	}
	return a, nil
}

// Close unmaps the file, unless the mapping is the caller's.
func (a *archive) Close() error {
	a.mapped = nil
	if a.own == nil {
		return nil
	}
	err := a.own.Close()
	a.own = nil
	return err
}

// has reports whether the archive holds an entry (a path below the folder).
func (a *archive) has(name string) bool {
	_, ok := a.entries[name]
	return ok
}

// read returns an entry's bytes. Stored entries point into the mapped file
// (read-only); deflated ones are inflated with the declared size as a bound.
func (a *archive) read(name string) ([]byte, error) {
	f, ok := a.entries[name]
	if !ok {
		return nil, fmt.Errorf("%s: missing entry %s%s", a.path, a.prefix, name)
	}
	size := f.UncompressedSize64
	if size > 1<<40 {
		return nil, fmt.Errorf("%s: entry %s%s declares %d bytes; the header is corrupt", a.path, a.prefix, name, size)
	}
	if f.Method == zip.Store && a.mapped != nil {
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s%s: %v", a.path, a.prefix, name, err)
		}
		if f.CompressedSize64 != size || off < 0 || uint64(off)+size > uint64(len(a.mapped)) {
			return nil, fmt.Errorf("%s: entry %s%s claims %d bytes at offset %d, past the end of the %d-byte file (truncated?)", a.path, a.prefix, name, size, off, len(a.mapped))
		}
		a.count(name, size)
		return a.mapped[off : uint64(off)+size], nil
	}
	if f.Method != zip.Store && size > maxDeflateRatio*f.CompressedSize64+1024 {
		return nil, fmt.Errorf("%s: entry %s%s claims to expand %d bytes into %d; the header is corrupt", a.path, a.prefix, name, f.CompressedSize64, size)
	}
	if a.mapped != nil && f.CompressedSize64 > uint64(len(a.mapped)) {
		return nil, fmt.Errorf("%s: entry %s%s claims %d compressed bytes in a %d-byte file (truncated?)", a.path, a.prefix, name, f.CompressedSize64, len(a.mapped))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: entry %s%s: %v", a.path, a.prefix, name, err)
	}
	defer rc.Close()
	buf := make([]byte, size)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("%s: entry %s%s: %v (the file is truncated or corrupt)", a.path, a.prefix, name, err)
	}
	// Reading to the end checks the CRC and that nothing follows.
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || (err != nil && err != io.EOF) {
		if err == nil {
			err = fmt.Errorf("more data than the %d bytes declared", size)
		}
		return nil, fmt.Errorf("%s: entry %s%s: %v", a.path, a.prefix, name, err)
	}
	a.count(name, size)
	return buf, nil
}

// count adds an entry read to the archive's input size, once.
func (a *archive) count(name string, size uint64) {
	if !a.counted[name] {
		a.counted[name] = true
		a.data.AddInput(int64(size))
	}
}

// hasCodeFolder reports whether any entry lies under code/.
func (a *archive) hasCodeFolder() bool {
	for name := range a.entries {
		if strings.HasPrefix(name, "code/") {
			return true
		}
	}
	return false
}

// codeFiles lists the code/ sources, as archive-relative paths.
func (a *archive) codeFiles() []string {
	var out []string
	for name := range a.entries {
		if strings.HasPrefix(name, "code/") && strings.HasSuffix(name, ".py") {
			out = append(out, name)
		}
	}
	return out
}
