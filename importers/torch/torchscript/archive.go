package torchscript

import (
	"archive/zip"
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/zipread"
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
	// z reads entries with CRC checks and an inflate budget.
	z *zipread.Archive
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

// openArchive indexes zr. data, when not nil, is the whole file that zr
// reads, owned by the caller; otherwise the file is mapped here.
func openArchive(zr *zip.Reader, path string, data []byte, ignoreCRC bool) (*archive, error) {
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
	a.z = &zipread.Archive{File: path + " (" + strings.TrimSuffix(a.prefix, "/") + ")", Data: a.mapped, SkipCRC: ignoreCRC}
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
// (read-only); deflated ones are inflated with the declared size as a bound
// and charged to the archive's inflate budget first. CRC-32 is checked.
func (a *archive) read(name string) ([]byte, error) {
	return a.readMax(name, 1<<40)
}

// readMax is read for an entry that may hold at most max bytes: a larger
// declared size is refused before anything is inflated.
func (a *archive) readMax(name string, max uint64) ([]byte, error) {
	f, ok := a.entries[name]
	if !ok {
		return nil, fmt.Errorf("%s: missing entry %s%s", a.path, a.prefix, name)
	}
	if a.mapped == nil {
		return nil, fmt.Errorf("%s: cannot map the file to read entry %s%s", a.path, a.prefix, name)
	}
	b, err := a.z.Entry(f, max)
	if err != nil {
		return nil, err
	}
	a.count(name, uint64(len(b)))
	return b, nil
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
