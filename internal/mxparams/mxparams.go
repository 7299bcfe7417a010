// Package mxparams reads and writes MXNet NDArray list files: the
// `-NNNN.params` half of a checkpoint, Gluon `save_parameters` files and
// `mx.nd.save` lists. The layout follows MXNet's NDArray::Save/Load
// (src/ndarray/ndarray.cc): a list header (magic 0x112, reserved), a uint64
// array count, one record per array, then a uint64 name count and
// length-prefixed names. Everything is little-endian.
package mxparams

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

// ListMagic is kMXAPINDArrayListMagic, the first uint64 of a list file.
const ListMagic = 0x112

// Record header magics. A record without one is the legacy V0 form whose
// first uint32 is the rank.
const (
	MagicV1 = 0xF993fac8 // int64 dims
	MagicV2 = 0xF993fac9 // adds the storage type
	MagicV3 = 0xF993faca // NumPy shape semantics (rank 0 = scalar)
)

// Storage types of MXNet NDArrays.
const (
	StorageDefault   = 0
	StorageRowSparse = 1
	StorageCSR       = 2
)

// maxRank bounds the rank read from a file; MXNet itself allows far fewer.
const maxRank = 32

// DensifyLimit bounds the dense bytes the sparse arrays of a fileSize-byte
// file may expand to: 32 MiB plus 64 bytes per byte of file, so that a
// tiny hostile file cannot ask for gigabytes while real sparse weights
// (a few percent of rows stored) still load.
func DensifyLimit(fileSize int) int64 { return 32<<20 + 64*int64(fileSize) }

// Array is one array of a list file, always dense.
type Array struct {
	// Name as stored, with any "arg:"/"aux:" prefix; "" in unnamed lists.
	Name   string
	Tensor *canon.Tensor // Tensor.Name is Name without prefix (or the index)
	// Version is the record header form: 0 (legacy), 1, 2 or 3.
	Version int
	// Storage is the storage type the file used (the tensor is densified).
	Storage int
	// DevType and DevID are the context the array was saved from.
	DevType, DevID int32
	// None marks an uninitialized array (MXNet saves them with rank 0).
	None bool
}

// Prefix returns "arg", "aux" or "" for the name's prefix.
func (a *Array) Prefix() string {
	if len(a.Name) > 4 && (a.Name[:4] == "arg:" || a.Name[:4] == "aux:") {
		return a.Name[:3]
	}
	return ""
}

// StripPrefix removes an "arg:" or "aux:" prefix.
func StripPrefix(name string) string {
	if len(name) > 4 && (name[:4] == "arg:" || name[:4] == "aux:") {
		return name[4:]
	}
	return name
}

// dtypes maps mshadow type flags to canonical dtypes.
var dtypes = map[int32]canon.DType{
	0: canon.Float32, 1: canon.Float64, 2: canon.Float16, 3: canon.Uint8,
	4: canon.Int32, 5: canon.Int8, 6: canon.Int64, 7: canon.Bool,
	8: canon.Int16, 9: canon.Uint16, 10: canon.Uint32, 11: canon.Uint64,
	12: canon.BFloat16,
}

// TypeFlag returns MXNet's type flag for a canonical dtype.
func TypeFlag(d canon.DType) (int32, bool) {
	for k, v := range dtypes {
		if v == d {
			return k, true
		}
	}
	return 0, false
}

// DTypeOf maps an MXNet type flag to a canonical dtype.
func DTypeOf(flag int32) (canon.DType, bool) {
	d, ok := dtypes[flag]
	return d, ok
}

// ReadFile reads a list file. Tensor data aliases one buffer holding the file.
func ReadFile(path string) ([]*Array, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// Open maps a list file read-only (see mmapfile): tensor data points into
// the mapping instead of a copy of the file, so a weights-sized file costs no
// heap. The caller closes the mapping once no tensor is used any more.
func Open(path string) ([]*Array, *mmapfile.Mapping, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	arrays, err := Parse(m.Data, path)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return arrays, m, nil
}

// IsList reports whether head starts like an NDArray list file.
func IsList(head []byte) bool {
	return len(head) >= 16 && binary.LittleEndian.Uint64(head) == ListMagic
}

type reader struct {
	b    []byte
	off  int
	file string
	what string // the record being read, for errors
	// densifyBudget is what is left of DensifyLimit for this file.
	densifyBudget int64
}

var errShort = errors.New("file ends early")

func (r *reader) fail(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if r.what != "" {
		return fmt.Errorf("%s: %s, at byte offset %d: %s", r.file, r.what, r.off, msg)
	}
	return fmt.Errorf("%s: at byte offset %d: %s", r.file, r.off, msg)
}

func (r *reader) need(n int64) error {
	if n < 0 || int64(len(r.b)-r.off) < n {
		return r.fail("needs %d more bytes but only %d remain (truncated or not an MXNet params file)", n, len(r.b)-r.off)
	}
	return nil
}

func (r *reader) u32() (uint32, error) {
	if err := r.need(4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

func (r *reader) u64() (uint64, error) {
	if err := r.need(8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

func (r *reader) bytes(n int64) ([]byte, error) {
	if err := r.need(n); err != nil {
		return nil, err
	}
	s := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return s, nil
}

// shape reads a TShape: uint32 rank, then int64 dims (or uint32 dims in the
// legacy form, whose rank has already been read as the "magic").
func (r *reader) shape(legacy bool, rank uint32, allowUnknown bool) ([]int64, error) {
	if rank > maxRank && !(allowUnknown && int32(rank) == -1) {
		return nil, r.fail("rank %d is not plausible (corrupt file?)", int32(rank))
	}
	if int32(rank) == -1 {
		return nil, nil
	}
	out := make([]int64, rank)
	for i := range out {
		if legacy {
			v, err := r.u32()
			if err != nil {
				return nil, err
			}
			out[i] = int64(v)
			continue
		}
		v, err := r.u64()
		if err != nil {
			return nil, err
		}
		out[i] = int64(v)
		if out[i] < 0 && !(allowUnknown && out[i] == -1) {
			return nil, r.fail("dimension %d is negative (%d)", i, out[i])
		}
	}
	return out, nil
}

// Parse decodes a list file held in b; file names it in errors.
func Parse(b []byte, file string) ([]*Array, error) {
	r := &reader{b: b, file: file, densifyBudget: DensifyLimit(len(b))}
	magic, err := r.u64()
	if err != nil {
		return nil, err
	}
	if magic != ListMagic {
		return nil, fmt.Errorf("%s: not an MXNet params file: starts with 0x%x, want the NDArray list magic 0x112", file, magic)
	}
	if _, err := r.u64(); err != nil { // reserved
		return nil, err
	}
	count, err := r.u64()
	if err != nil {
		return nil, err
	}
	// Every record needs at least 4 bytes, which bounds a lying count.
	if count > uint64(len(b)-r.off)/4 {
		return nil, r.fail("declares %d arrays, more than the file can hold", count)
	}
	arrays := make([]*Array, 0, count)
	for i := 0; i < int(count); i++ {
		r.what = fmt.Sprintf("array %d", i)
		a, err := r.array()
		if err != nil {
			return nil, err
		}
		arrays = append(arrays, a)
	}
	r.what = "name list"
	nnames, err := r.u64()
	if err != nil {
		return nil, err
	}
	if nnames != 0 && nnames != count {
		return nil, r.fail("has %d names for %d arrays", nnames, count)
	}
	for i := 0; i < int(nnames); i++ {
		n, err := r.u64()
		if err != nil {
			return nil, err
		}
		s, err := r.bytes(int64(min(n, math.MaxInt64)))
		if err != nil {
			return nil, err
		}
		arrays[i].Name = string(s)
	}
	if r.off != len(b) {
		return nil, r.fail("%d unexpected bytes after the name list", len(b)-r.off)
	}
	seen := map[string]bool{}
	for i, a := range arrays {
		a.Tensor.Name = StripPrefix(a.Name)
		if nnames == 0 {
			a.Tensor.Name = fmt.Sprint(i)
		}
		if seen[a.Name] && nnames != 0 {
			return nil, fmt.Errorf("%s: array name %q appears twice", file, a.Name)
		}
		seen[a.Name] = true
	}
	return arrays, nil
}

func (r *reader) array() (*Array, error) {
	a := &Array{}
	first, err := r.u32()
	if err != nil {
		return nil, err
	}
	var shape []int64
	switch first {
	case MagicV2, MagicV3:
		a.Version = 2
		if first == MagicV3 {
			a.Version = 3
		}
		st, err := r.u32()
		if err != nil {
			return nil, err
		}
		a.Storage = int(int32(st))
		var sshape []int64
		nad := 0
		switch a.Storage {
		case StorageDefault:
		case StorageRowSparse:
			nad = 1
		case StorageCSR:
			nad = 2
		default:
			return nil, r.fail("unknown storage type %d", a.Storage)
		}
		if a.Version == 3 && nad > 0 {
			return nil, r.fail("sparse storage in a NumPy-semantics (V3) record")
		}
		if nad > 0 {
			rank, err := r.u32()
			if err != nil {
				return nil, err
			}
			if sshape, err = r.shape(false, rank, false); err != nil {
				return nil, err
			}
		}
		rank, err := r.u32()
		if err != nil {
			return nil, err
		}
		if shape, err = r.shape(false, rank, a.Version == 3); err != nil {
			return nil, err
		}
		if a.Version == 2 && len(shape) == 0 || a.Version == 3 && (shape == nil || hasUnknown(shape)) {
			return r.none(a)
		}
		dt, err := r.contextAndDType(a)
		if err != nil {
			return nil, err
		}
		if nad > 0 {
			return r.sparse(a, dt, shape, sshape, nad)
		}
		return r.dense(a, dt, shape)
	case MagicV1:
		a.Version = 1
		rank, err := r.u32()
		if err != nil {
			return nil, err
		}
		if shape, err = r.shape(false, rank, false); err != nil {
			return nil, err
		}
	default:
		// Legacy record: the uint32 just read is the rank, dims are uint32.
		if shape, err = r.shape(true, first, false); err != nil {
			return nil, err
		}
	}
	if len(shape) == 0 {
		return r.none(a)
	}
	dt, err := r.contextAndDType(a)
	if err != nil {
		return nil, err
	}
	return r.dense(a, dt, shape)
}

func hasUnknown(shape []int64) bool {
	for _, d := range shape {
		if d < 0 {
			return true
		}
	}
	return false
}

func (r *reader) none(a *Array) (*Array, error) {
	a.None = true
	a.Tensor = &canon.Tensor{DType: canon.Float32, Shape: []int64{0}, Data: []byte{}}
	return a, nil
}

func (r *reader) context(a *Array) error {
	dt, err := r.u32()
	if err != nil {
		return err
	}
	id, err := r.u32()
	if err != nil {
		return err
	}
	a.DevType, a.DevID = int32(dt), int32(id)
	return nil
}

// contextAndDType reads the device context and the element type flag that
// follow the shape in every record version.
func (r *reader) contextAndDType(a *Array) (canon.DType, error) {
	if err := r.context(a); err != nil {
		return 0, err
	}
	flag, err := r.u32()
	if err != nil {
		return 0, err
	}
	dt, ok := DTypeOf(int32(flag))
	if !ok {
		return 0, r.fail("unknown MXNet type flag %d", int32(flag))
	}
	return dt, nil
}

func (r *reader) dense(a *Array, dt canon.DType, shape []int64) (*Array, error) {
	t := &canon.Tensor{DType: dt, Shape: shape}
	n := t.ByteSize()
	if n < 0 {
		return nil, r.fail("shape %v overflows", shape)
	}
	data, err := r.bytes(n)
	if err != nil {
		return nil, err
	}
	t.Data = data
	a.Tensor = t
	return a, nil
}

// sparse reads a row_sparse or CSR record and densifies it.
func (r *reader) sparse(a *Array, dt canon.DType, shape, sshape []int64, nad int) (*Array, error) {
	auxTypes := make([]canon.DType, nad)
	auxShapes := make([][]int64, nad)
	for i := 0; i < nad; i++ {
		flag, err := r.u32()
		if err != nil {
			return nil, err
		}
		d, ok := DTypeOf(int32(flag))
		if !ok || !d.IsInt() {
			return nil, r.fail("sparse index array %d has type flag %d, want an integer type", i, int32(flag))
		}
		auxTypes[i] = d
		rank, err := r.u32()
		if err != nil {
			return nil, err
		}
		if auxShapes[i], err = r.shape(false, rank, false); err != nil {
			return nil, err
		}
	}
	vals := &canon.Tensor{Name: "values", DType: dt, Shape: sshape}
	n := vals.ByteSize()
	if n < 0 {
		return nil, r.fail("storage shape %v overflows", sshape)
	}
	var err error
	if vals.Data, err = r.bytes(n); err != nil {
		return nil, err
	}
	aux := make([][]int64, nad)
	for i := 0; i < nad; i++ {
		t := &canon.Tensor{Name: "indices", DType: auxTypes[i], Shape: auxShapes[i]}
		n := t.ByteSize()
		if n < 0 {
			return nil, r.fail("index shape %v overflows", auxShapes[i])
		}
		if t.Data, err = r.bytes(n); err != nil {
			return nil, err
		}
		if aux[i], err = t.Int64s(); err != nil {
			return nil, r.fail("%v", err)
		}
	}
	dense := &canon.Tensor{DType: dt, Shape: shape}
	size := dense.ByteSize()
	if size < 0 || size > r.densifyBudget {
		return nil, r.fail("sparse %s array of shape %v would need %d bytes once densified, over the %d bytes allowed for a %d-byte file (corrupt file, or sparse weights too large to convert)", dt, shape, size, DensifyLimit(len(r.b)), len(r.b))
	}
	r.densifyBudget -= size
	dense.Data = make([]byte, size)
	es := int64(dt.Size())
	if a.Storage == StorageRowSparse {
		// values (nnz_rows, rest...) go to the rows listed in aux[0].
		if len(shape) == 0 || len(sshape) != len(shape) {
			return nil, r.fail("row_sparse storage shape %v does not match shape %v", sshape, shape)
		}
		for i := 1; i < len(shape); i++ {
			if sshape[i] != shape[i] {
				return nil, r.fail("row_sparse storage shape %v does not match shape %v", sshape, shape)
			}
		}
		rowBytes := es * canon.NumElements(shape[1:])
		if int64(len(aux[0])) != sshape[0] {
			return nil, r.fail("row_sparse has %d row indices for %d stored rows", len(aux[0]), sshape[0])
		}
		for i, row := range aux[0] {
			if row < 0 || row >= shape[0] {
				return nil, r.fail("row_sparse row index %d is outside 0..%d", row, shape[0]-1)
			}
			copy(dense.Data[row*rowBytes:(row+1)*rowBytes], vals.Data[int64(i)*rowBytes:])
		}
	} else {
		// CSR: aux[0] = indptr (rows+1), aux[1] = column indices (nnz).
		if len(shape) != 2 || len(sshape) != 1 {
			return nil, r.fail("csr array must be 2-D with 1-D storage, has shape %v storage %v", shape, sshape)
		}
		indptr, idx := aux[0], aux[1]
		if int64(len(indptr)) != shape[0]+1 || int64(len(idx)) != sshape[0] {
			return nil, r.fail("csr index arrays have %d row pointers and %d column indices for shape %v with %d values", len(indptr), len(idx), shape, sshape[0])
		}
		for row := int64(0); row < shape[0]; row++ {
			lo, hi := indptr[row], indptr[row+1]
			if lo < 0 || hi < lo || hi > int64(len(idx)) {
				return nil, r.fail("csr row pointer of row %d is invalid (%d..%d)", row, lo, hi)
			}
			for k := lo; k < hi; k++ {
				col := idx[k]
				if col < 0 || col >= shape[1] {
					return nil, r.fail("csr column index %d is outside 0..%d", col, shape[1]-1)
				}
				dst := (row*shape[1] + col) * es
				copy(dense.Data[dst:dst+es], vals.Data[k*es:])
			}
		}
	}
	a.Tensor = dense
	return a, nil
}

// StorageName names a storage type for notes and errors.
func StorageName(s int) string {
	switch s {
	case StorageRowSparse:
		return "row_sparse"
	case StorageCSR:
		return "csr"
	}
	return "default"
}

// CheckWritable reports the first of tensors Write cannot store, so a
// streaming writer can refuse before it creates any file.
func CheckWritable(names []string, tensors []*canon.Tensor) error {
	if len(names) != len(tensors) {
		return fmt.Errorf("mxparams: %d names for %d tensors", len(names), len(tensors))
	}
	for _, t := range tensors {
		if err := t.CheckData(); err != nil {
			return err
		}
		if _, ok := TypeFlag(t.DType); !ok {
			return fmt.Errorf("tensor %q: MXNet has no %s type", t.Name, t.DType)
		}
		if len(t.Shape) == 0 {
			// Rank 0 means "no array" in a V2 record; store scalars as (1,).
			return fmt.Errorf("tensor %q is a scalar, which MXNet params (V2) cannot hold; reshape it to (1,)", t.Name)
		}
	}
	return nil
}

// Write writes arrays as MXNet 1.x does: V2 dense records in the CPU
// context, then the names. Each entry's Name is written as given (callers
// add "arg:"/"aux:").
func Write(w io.Writer, names []string, tensors []*canon.Tensor) error {
	if err := CheckWritable(names, tensors); err != nil {
		return err
	}
	le := binary.LittleEndian
	var hdr []byte
	hdr = le.AppendUint64(hdr, ListMagic)
	hdr = le.AppendUint64(hdr, 0)
	hdr = le.AppendUint64(hdr, uint64(len(tensors)))
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, t := range tensors {
		flag, _ := TypeFlag(t.DType)
		var b []byte
		b = le.AppendUint32(b, MagicV2)
		b = le.AppendUint32(b, StorageDefault)
		b = le.AppendUint32(b, uint32(len(t.Shape)))
		for _, d := range t.Shape {
			b = le.AppendUint64(b, uint64(d))
		}
		b = le.AppendUint32(b, 1) // kCPU
		b = le.AppendUint32(b, 0) // device 0
		b = le.AppendUint32(b, uint32(flag))
		if _, err := w.Write(b); err != nil {
			return err
		}
		if _, err := w.Write(t.Data); err != nil {
			return err
		}
	}
	b := le.AppendUint64(nil, uint64(len(names)))
	for _, n := range names {
		b = le.AppendUint64(b, uint64(len(n)))
		b = append(b, n...)
	}
	_, err := w.Write(b)
	return err
}
