package torchimport

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// legacyMagic is the number the pre-1.6 torch.save format starts with.
var legacyMagic, _ = new(big.Int).SetString("1950a86a20f9469cfc6c", 16)

// isLegacyMagic reports whether head starts with a pickle of the magic number.
func isLegacyMagic(head []byte) bool {
	v, _, err := pickle.Decode(head, pickle.Options{})
	if err != nil {
		return false
	}
	n, ok := v.(*big.Int)
	return ok && n.Cmp(legacyMagic) == 0
}

// legacyFile is the pre-1.6 format: pickles of the magic number, the
// protocol version and sys_info, then the data pickle, then the list of
// storage keys, then each storage's raw bytes prefixed by its element count.
type legacyFile struct {
	file      string
	m         *mmapfile.Mapping
	storages  map[string]*storage
	views     map[string]*storageView
	order     []string
	bigEndian bool
}

// readLegacy decodes the header pickles and the data pickle, then locates
// every storage's bytes in the mapping.
func readLegacy(file string, m *mmapfile.Mapping) (pickle.Value, *legacyFile, error) {
	lf := &legacyFile{file: file, m: m, storages: map[string]*storage{}, views: map[string]*storageView{}}
	data := m.Data
	pos := 0
	next := func(what string, opts pickle.Options) (pickle.Value, error) {
		v, n, err := pickle.Decode(data[pos:], opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %s pickle at byte %d: %w", file, what, pos, err)
		}
		pos += n
		return v, nil
	}
	magic, err := next("magic number", pickle.Options{})
	if err != nil {
		return nil, nil, err
	}
	if n, ok := magic.(*big.Int); !ok || n.Cmp(legacyMagic) != 0 {
		return nil, nil, fmt.Errorf("%s: not a PyTorch file (wrong magic number)", file)
	}
	proto, err := next("protocol version", pickle.Options{})
	if err != nil {
		return nil, nil, err
	}
	if proto != int64(1001) {
		return nil, nil, fmt.Errorf("%s: legacy format protocol %s is not supported (want 1001)", file, pickle.Format(proto))
	}
	sys, err := next("sys_info", pickle.Options{})
	if err != nil {
		return nil, nil, err
	}
	if d, ok := sys.(*pickle.Dict); ok {
		if le, ok := d.Get("little_endian"); ok && le == false {
			lf.bigEndian = true
		}
	}
	root, err := next("data", pickle.Options{FindClass: findClass, PersistentLoad: lf.persistentLoad})
	if err != nil {
		return nil, nil, err
	}
	keysV, err := next("storage keys", pickle.Options{})
	if err != nil {
		return nil, nil, err
	}
	keys, ok := keysV.(*pickle.List)
	if !ok {
		return nil, nil, fmt.Errorf("%s: storage key list is a %s, not a list", file, pickle.TypeName(keysV))
	}
	for _, kv := range keys.Items {
		key, err := pidString(kv, "storage key")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", file, err)
		}
		st := lf.storages[key]
		if st == nil {
			return nil, nil, fmt.Errorf("%s: storage %s is listed but no tensor uses it", file, key)
		}
		if pos > len(data)-8 {
			return nil, nil, fmt.Errorf("%s: storage %s: file ends before its element count (truncated)", file, key)
		}
		count := binary.LittleEndian.Uint64(data[pos:])
		if lf.bigEndian {
			count = binary.BigEndian.Uint64(data[pos:])
		}
		pos += 8
		if count != uint64(st.Numel) {
			return nil, nil, fmt.Errorf("%s: storage %s holds %d elements, the data pickle says %d", file, key, count, st.Numel)
		}
		size, err := st.byteSize()
		if err != nil {
			return nil, nil, err
		}
		if size > int64(len(data)-pos) {
			return nil, nil, fmt.Errorf("%s: storage %s needs %d bytes at byte %d, the file has %d left (truncated)", file, key, size, pos, len(data)-pos)
		}
		b := data[pos : pos+int(size) : pos+int(size)]
		st.load = func() ([]byte, error) { return b, nil }
		pos += int(size)
	}
	for key, st := range lf.storages {
		if st.load == nil {
			return nil, nil, fmt.Errorf("%s: storage %s is used but its data is missing from the file", file, key)
		}
	}
	return root, lf, nil
}

// persistentLoad resolves ('storage', type, root_key, location, numel,
// view_metadata), where view_metadata is None or (view_key, offset, size).
func (lf *legacyFile) persistentLoad(pid pickle.Value) (pickle.Value, error) {
	t, ok := pid.(*pickle.Tuple)
	if !ok || len(t.Items) < 1 {
		return nil, fmt.Errorf("unsupported persistent id %s", pickle.Format(pid))
	}
	switch t.Items[0] {
	case "storage":
	case "module":
		return nil, fmt.Errorf("the file holds a whole pickled nn.Module (its class source is embedded); modelbridge reads state dicts: re-save with torch.save(model.state_dict(), path)")
	default:
		return nil, fmt.Errorf("unsupported persistent id %s", pickle.Format(pid))
	}
	if len(t.Items) < 6 {
		return nil, fmt.Errorf("persistent id %s: want ('storage', type, key, location, numel, view)", pickle.Format(pid))
	}
	typ, key, numel, err := storageFields(pid, t)
	if err != nil {
		return nil, err
	}
	st := lf.storages[key]
	if st == nil {
		st = &storage{Key: key, Type: typ, Numel: numel}
		if size, err := st.byteSize(); err != nil {
			return nil, err
		} else if size > int64(len(lf.m.Data)) {
			return nil, fmt.Errorf("storage %s declares %d bytes, more than the whole file", key, size)
		}
		lf.storages[key] = st
		lf.order = append(lf.order, key)
	} else if st.Type.Name != typ.Name {
		return nil, fmt.Errorf("storage %s is used as both %s and %s", key, st.Type.describe(), typ.describe())
	}
	if _, isNone := t.Items[5].(pickle.None); isNone {
		return &storageView{Base: st, Numel: st.Numel}, nil
	}
	vm, ok := t.Items[5].(*pickle.Tuple)
	if !ok || len(vm.Items) != 3 {
		return nil, fmt.Errorf("persistent id %s: bad view metadata", pickle.Format(pid))
	}
	viewKey, err := pidString(vm.Items[0], "view key")
	if err != nil {
		return nil, err
	}
	if v, ok := lf.views[viewKey]; ok {
		return v, nil
	}
	off, ok1 := vm.Items[1].(int64)
	size, ok2 := vm.Items[2].(int64)
	if !ok1 || !ok2 || off < 0 || size < 0 || off > st.Numel || size > st.Numel-off {
		return nil, fmt.Errorf("storage view %s (%s) is outside storage %s of %d elements", viewKey, pickle.Format(vm), key, st.Numel)
	}
	v := &storageView{Base: st, Offset: off, Numel: size}
	lf.views[viewKey] = v
	return v, nil
}
