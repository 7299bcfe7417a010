package torchimport

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/pickle"
	"github.com/modelbridge/modelbridge/internal/zipread"
)

// zipArchive is a torch.save zip file (torch >= 1.6): prefix/data.pkl names
// storages by key, stored as prefix/data/<key>.
type zipArchive struct {
	file      string
	m         *mmapfile.Mapping
	zr        *zip.Reader
	z         *zipread.Archive // CRC-checked, budgeted entry reads
	prefix    string           // "archive/" (any folder name)
	entries   map[string]*zip.File
	storages  map[string]*storage
	bigEndian bool
}

func openZip(file string, m *mmapfile.Mapping) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(m.Data), int64(len(m.Data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable zip archive (%v); the file may be truncated", file, err)
	}
	return zr, nil
}

// findPrefix locates the archive's top folder from its */data.pkl entry.
func findPrefix(file string, zr *zip.Reader) (string, error) {
	var found []string
	for _, f := range zr.File {
		if path.Base(f.Name) == "data.pkl" && strings.Count(f.Name, "/") == 1 {
			found = append(found, f.Name)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s: zip archive without a <folder>/data.pkl entry: not a file torch.save wrote", file)
	case 1:
		return strings.TrimSuffix(found[0], "data.pkl"), nil
	}
	return "", fmt.Errorf("%s: zip archive has several data.pkl entries (%s); cannot tell which is the model", file, strings.Join(found, ", "))
}

func newZipArchive(file string, m *mmapfile.Mapping, zr *zip.Reader, prefix string, ignoreCRC bool) (*zipArchive, error) {
	z := &zipread.Archive{File: file, Data: m.Data, SkipCRC: ignoreCRC}
	a := &zipArchive{file: file, m: m, zr: zr, z: z, prefix: prefix, entries: map[string]*zip.File{}, storages: map[string]*storage{}}
	for _, f := range zr.File {
		a.entries[f.Name] = f
	}
	if f := a.entries[prefix+"byteorder"]; f != nil {
		b, err := a.readSmall(f, 16)
		if err != nil {
			return nil, err
		}
		switch strings.TrimSpace(string(b)) {
		case "little":
		case "big":
			a.bigEndian = true
		default:
			return nil, fmt.Errorf("%s: %s says %q, want little or big", file, f.Name, b)
		}
	}
	return a, nil
}

// readSmall reads a metadata entry, refusing one larger than limit.
func (a *zipArchive) readSmall(f *zip.File, limit uint64) ([]byte, error) {
	if f.UncompressedSize64 > limit {
		return nil, fmt.Errorf("%s: entry %s is %d bytes, more than the %d expected", a.file, f.Name, f.UncompressedSize64, limit)
	}
	return a.entryBytes(f, int64(f.UncompressedSize64))
}

// entryBytes returns the first n bytes of an entry: a slice of the mapping
// for stored entries, a bounded decompression for deflated ones. The whole
// entry is read, so that its CRC-32 is checked.
func (a *zipArchive) entryBytes(f *zip.File, n int64) ([]byte, error) {
	if n < 0 || uint64(n) > f.UncompressedSize64 {
		return nil, fmt.Errorf("%s: entry %s holds %d bytes, need %d (file truncated or corrupt)", a.file, f.Name, f.UncompressedSize64, n)
	}
	b, err := a.z.Entry(f, math.MaxUint64)
	if err != nil {
		return nil, err
	}
	return b[:n:n], nil
}

// persistentLoad resolves ('storage', storage_type, key, location, numel).
func (a *zipArchive) persistentLoad(pid pickle.Value) (pickle.Value, error) {
	t, ok := pid.(*pickle.Tuple)
	if !ok || len(t.Items) < 5 || t.Items[0] != "storage" {
		return nil, fmt.Errorf("unsupported persistent id %s (want ('storage', type, key, location, numel))", pickle.Format(pid))
	}
	typ, key, numel, err := storageFields(pid, t)
	if err != nil {
		return nil, err
	}
	if st, ok := a.storages[key]; ok {
		if st.Type != typ && st.Type.Name != typ.Name {
			return nil, fmt.Errorf("storage %s is used as both %s and %s", key, st.Type.describe(), typ.describe())
		}
		return &storageView{Base: st, Numel: st.Numel}, nil
	}
	name := a.prefix + "data/" + key
	f := a.entries[name]
	if f == nil {
		return nil, fmt.Errorf("storage %s: entry %s is missing from the archive", key, name)
	}
	st := &storage{Key: key, Type: typ, Numel: numel}
	size, err := st.byteSize()
	if err != nil {
		return nil, err
	}
	if uint64(size) > f.UncompressedSize64 {
		return nil, fmt.Errorf("storage %s declares %d elements of %s (%d bytes) but %s holds %d bytes (file truncated or corrupt)", key, numel, typ.describe(), size, name, f.UncompressedSize64)
	}
	st.load = func() ([]byte, error) { return a.entryBytes(f, size) }
	a.storages[key] = st
	return &storageView{Base: st, Numel: numel}, nil
}

// hasCode reports whether the archive holds TorchScript code.
func hasCode(zr *zip.Reader, prefix string) bool {
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, prefix+"code/") {
			return true
		}
	}
	return false
}

// storageFields reads the type, key and element count of a ('storage',
// type, key, location, numel, ...) persistent id; t is pid, already checked
// to hold at least five items.
func storageFields(pid pickle.Value, t *pickle.Tuple) (typ *storageType, key string, numel int64, err error) {
	typ, ok := t.Items[1].(*storageType)
	if !ok {
		return nil, "", 0, fmt.Errorf("persistent id %s: %s is not a storage type", pickle.Format(pid), pickle.TypeName(t.Items[1]))
	}
	if key, err = pidString(t.Items[2], "storage key"); err != nil {
		return nil, "", 0, err
	}
	numel, ok = t.Items[4].(int64)
	if !ok || numel < 0 {
		return nil, "", 0, fmt.Errorf("persistent id %s: bad element count", pickle.Format(pid))
	}
	return typ, key, numel, nil
}
