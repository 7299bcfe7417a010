package torchexport

import (
	"archive/zip"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
	"github.com/modelbridge/modelbridge/internal/picklewrite"
)

// Entry is one state-dict item: the key it is saved under and its tensor.
type Entry struct {
	Key    string
	Tensor *canon.Tensor
}

// storageClasses are the torch storage types torch.load maps back to dtypes.
var storageClasses = map[canon.DType]string{
	canon.Float32:  "FloatStorage",
	canon.Float64:  "DoubleStorage",
	canon.Float16:  "HalfStorage",
	canon.BFloat16: "BFloat16Storage",
	canon.Int8:     "CharStorage",
	canon.Int16:    "ShortStorage",
	canon.Int32:    "IntStorage",
	canon.Int64:    "LongStorage",
	canon.Uint8:    "ByteStorage",
	canon.Bool:     "BoolStorage",
}

// dataAlignment is where torch.save starts each record's bytes, so that a
// loader can map tensors in place.
const dataAlignment = 64

// ArchiveName is the folder inside the zip: the file's base name without its
// extension, as torch.save names it.
func ArchiveName(path string) string {
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || name == "." {
		return "archive"
	}
	return name
}

// WriteStateDict writes entries as a torch.save zip file at path,
// atomically: torch.load(path) gives an OrderedDict with the same keys, in
// order, and the same dtypes, shapes and bytes.
func WriteStateDict(path string, entries []Entry) error {
	return WriteStateDictProgress(path, entries, nil)
}

// WriteStateDictProgress is WriteStateDict, calling progress (when not nil)
// after each storage is written with the tensor bytes written so far and
// their total.
func WriteStateDictProgress(path string, entries []Entry, progress func(done, total int64)) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := writeStateDict(f, ArchiveName(path), entries, progress); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Commit()
}

// storage is one torch storage: a run of bytes one or more tensors view.
type storage struct {
	key   string
	dtype canon.DType
	data  []byte
}

// tensorRef is where one entry's tensor lives in its storage.
type tensorRef struct {
	st     *storage
	offset int64 // in elements
}

// planStorages gives each tensor a storage. Tensors whose data is the same
// bytes in memory (tied weights), or lies inside another tensor's data of
// the same dtype (views of one source storage), share one storage, so the
// saved file keeps the sharing the source had.
func planStorages(entries []Entry) ([]*storage, []tensorRef, error) {
	type span struct {
		idx        int
		start, end uintptr
	}
	var spans []span
	for i, e := range entries {
		t := e.Tensor
		if _, ok := storageClasses[t.DType]; !ok {
			return nil, nil, fmt.Errorf("tensor %q: dtype %s has no PyTorch storage type (PyTorch 1.13 supports f32, f64, f16, bf16, i8, i16, i32, i64, u8, bool); convert it first", e.Key, t.DType)
		}
		if err := t.CheckData(); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", e.Key, err)
		}
		if len(t.Data) > 0 {
			p := uintptr(unsafe.Pointer(unsafe.SliceData(t.Data)))
			spans = append(spans, span{i, p, p + uintptr(len(t.Data))})
		}
	}
	// Longest span first among equal starts, so containers come before views.
	sort.SliceStable(spans, func(a, b int) bool {
		if spans[a].start != spans[b].start {
			return spans[a].start < spans[b].start
		}
		return spans[a].end > spans[b].end
	})
	refs := make([]tensorRef, len(entries))
	owner := make([]int, len(entries)) // entry index owning the storage, or -1
	for i := range owner {
		owner[i] = i
	}
	var open []span // containers that may hold later spans
	for _, s := range spans {
		for len(open) > 0 && open[len(open)-1].end <= s.start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			c := open[len(open)-1]
			ct, st := entries[c.idx].Tensor, entries[s.idx].Tensor
			size := uintptr(st.DType.Size())
			if s.end <= c.end && ct.DType == st.DType && (s.start-c.start)%size == 0 {
				owner[s.idx] = owner[c.idx]
				refs[s.idx].offset = int64((s.start - c.start) / size)
				continue
			}
		}
		open = append(open, s)
	}
	var storages []*storage
	byOwner := map[int]*storage{}
	for i, e := range entries {
		o := owner[i]
		st, ok := byOwner[o]
		if !ok {
			st = &storage{key: strconv.Itoa(len(storages)), dtype: entries[o].Tensor.DType, data: entries[o].Tensor.Data}
			byOwner[o] = st
			storages = append(storages, st)
		}
		refs[i].st = st
		_ = e
	}
	return storages, refs, nil
}

// statePickle builds data.pkl: an OrderedDict of _rebuild_tensor_v2 calls,
// laid out as torch.save's pickler lays it out.
func statePickle(entries []Entry, refs []tensorRef) ([]byte, error) {
	orderedDict := picklewrite.Global{Module: "collections", Name: "OrderedDict"}
	rebuild := picklewrite.Global{Module: "torch._utils", Name: "_rebuild_tensor_v2"}
	items := make([]picklewrite.Item, len(entries))
	for i, e := range entries {
		t, ref := e.Tensor, refs[i]
		size := make(picklewrite.Tuple, len(t.Shape))
		stride := make(picklewrite.Tuple, len(t.Shape))
		acc := int64(1)
		for d := len(t.Shape) - 1; d >= 0; d-- {
			size[d] = picklewrite.Int(t.Shape[d])
			stride[d] = picklewrite.Int(acc)
			acc *= max(t.Shape[d], 1)
		}
		numel := int64(len(ref.st.data) / ref.st.dtype.Size())
		pid := &picklewrite.PersistentID{ID: picklewrite.Tuple{
			picklewrite.Str("storage"),
			picklewrite.Global{Module: "torch", Name: storageClasses[ref.st.dtype]},
			picklewrite.Str(ref.st.key),
			picklewrite.Str("cpu"),
			picklewrite.Int(numel),
		}}
		items[i] = picklewrite.Item{
			Key: picklewrite.Str(e.Key),
			Value: &picklewrite.Reduce{Callable: rebuild, Args: picklewrite.Tuple{
				pid, picklewrite.Int(ref.offset), size, stride, picklewrite.Bool(false),
				&picklewrite.Reduce{Callable: orderedDict, Args: picklewrite.Tuple{}},
			}},
		}
	}
	return picklewrite.Marshal(&picklewrite.Reduce{Callable: orderedDict, Args: picklewrite.Tuple{}, Items: items})
}

// countingWriter tracks the archive offset so entries can be aligned.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// alignedZip writes STORED entries whose data starts on dataAlignment, padding
// the local header's extra field with an "FB" record of 'Z's as torch does.
// CRCs and sizes go into data descriptors after each entry, so data streams
// straight from its source (often a memory mapping) to the output.
type alignedZip struct {
	cw *countingWriter
	zw *zip.Writer
	// pending is the size of the data descriptor archive/zip writes for the
	// previous entry when the next one starts (16 bytes, 24 for zip64).
	pending int64
	// onWrite, when set, is told of every chunk of entry data written.
	onWrite func(n int64)
}

func newAlignedZip(w io.Writer) *alignedZip {
	cw := &countingWriter{w: w}
	return &alignedZip{cw: cw, zw: zip.NewWriter(cw)}
}

func (z *alignedZip) add(name string, data []byte) error {
	if err := z.zw.Flush(); err != nil {
		return err
	}
	const localHeader = 30
	const extraHeader = 4
	start := z.cw.n + z.pending + localHeader + int64(len(name)) + extraHeader
	pad := (dataAlignment - start%dataAlignment) % dataAlignment
	extra := make([]byte, extraHeader+pad)
	extra[0], extra[1] = 'F', 'B'
	extra[2], extra[3] = byte(pad), byte(pad>>8)
	for i := extraHeader; i < len(extra); i++ {
		extra[i] = 'Z'
	}
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Extra: extra})
	if err != nil {
		return err
	}
	err = z.copyData(w, data)
	z.pending = 16
	if uint64(len(data)) >= 0xffffffff {
		z.pending = 24
	}
	return err
}

// progressChunk is how much of a large storage is written between two
// progress reports, so that a bar moves through one huge tensor.
const progressChunk = 8 << 20

// copyData writes data a chunk at a time, telling onWrite after each.
func (z *alignedZip) copyData(w io.Writer, data []byte) error {
	for len(data) > 0 {
		n := min(len(data), progressChunk)
		if _, err := w.Write(data[:n]); err != nil {
			return err
		}
		if z.onWrite != nil {
			z.onWrite(int64(n))
		}
		data = data[n:]
	}
	return nil
}

func writeStateDict(w io.Writer, archive string, entries []Entry, progress func(done, total int64)) error {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if seen[e.Key] {
			return fmt.Errorf("state dict key %q appears twice", e.Key)
		}
		seen[e.Key] = true
	}
	storages, refs, err := planStorages(entries)
	if err != nil {
		return err
	}
	pkl, err := statePickle(entries, refs)
	if err != nil {
		return err
	}
	z := newAlignedZip(w)
	if err := z.add(archive+"/data.pkl", pkl); err != nil {
		return err
	}
	if err := z.add(archive+"/byteorder", []byte("little")); err != nil {
		return err
	}
	var total, done int64
	for _, st := range storages {
		total += int64(len(st.data))
	}
	if progress != nil {
		z.onWrite = func(n int64) {
			done += n
			progress(done, total)
		}
	}
	for _, st := range storages {
		if err := z.add(archive+"/data/"+st.key, st.data); err != nil {
			return fmt.Errorf("storage %s: %w", st.key, err)
		}
	}
	z.onWrite = nil
	if err := z.add(archive+"/version", []byte("3\n")); err != nil {
		return err
	}
	return z.zw.Close()
}
