// Package onnxtensor is the ONNX TensorProto codec: it turns TensorProtos
// into canonical tensors (raw, typed and external data, without copying raw
// bytes) and canonical tensors into TensorProtos, streamed or as .pb files.
// The ONNX importer and exporter and the tensor-file loader share it; it
// depends only on canon and the generated ONNX protobuf types.
package onnxtensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

// fromONNX maps TensorProto.DataType to canonical dtypes.
var fromONNX = map[int32]canon.DType{
	1: canon.Float32, 2: canon.Uint8, 3: canon.Int8, 4: canon.Uint16, 5: canon.Int16,
	6: canon.Int32, 7: canon.Int64, 9: canon.Bool, 10: canon.Float16, 11: canon.Float64,
	12: canon.Uint32, 13: canon.Uint64, 16: canon.BFloat16, 8: canon.String,
}

// newerTypeNames names the element types ONNX added after the compiled
// onnx.proto (1.16+), so that refusals say which type.
var newerTypeNames = map[int32]string{23: "FLOAT4E2M1", 24: "FLOAT8E8M0", 25: "UINT2", 26: "INT2"}

// DType converts an ONNX element type, with a message naming what is
// unsupported.
func DType(t int32) (canon.DType, error) {
	if d, ok := fromONNX[t]; ok {
		return d, nil
	}
	name := onnxpb.TensorProto_DataType(t).String()
	if n, ok := newerTypeNames[t]; ok {
		name = n
	}
	switch t {
	case 14, 15:
		return canon.Undefined, fmt.Errorf("complex element type %s is not supported by modelbridge", name)
	case 0:
		return canon.Undefined, errors.New("element type is not set (UNDEFINED)")
	}
	return canon.Undefined, fmt.Errorf("element type %s (%d) is not supported by modelbridge (supported: f32, f16, bf16, f64, i8..i64, u8..u64, bool, string)", name, t)
}

// Reader turns TensorProtos into canonical tensors, resolving external
// data against BaseDir.
type Reader struct {
	BaseDir string
	// Graph, when set, owns the mappings of external data files (and lists
	// them in its Meta.SourceFiles); without it external data is read into
	// memory.
	Graph *canon.Graph
	files map[string]*mmapfile.Mapping
}

// ReadProto converts one TensorProto. Raw data is used in place
// (tensor.Data aliases tp.RawData); external data is resolved relative to
// baseDir and read into memory.
func ReadProto(tp *onnxpb.TensorProto, baseDir string) (*canon.Tensor, error) {
	r := &Reader{BaseDir: baseDir}
	return r.Convert(tp, tp.RawData, tp.RawData != nil)
}

// ReadFile reads a serialized TensorProto (such as a conformance test's
// test_data_set_0/input_0.pb). The tensor is named as in the file.
func ReadFile(path string) (t *canon.Tensor, err error) {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer panicerr.Recover(path+": reading the tensor", &err)
	r := &Reader{BaseDir: filepath.Dir(path)}
	t, err = r.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Decode parses an encoded TensorProto without copying its raw_data: the
// tensor's data aliases msg.
func (r *Reader) Decode(msg []byte) (*canon.Tensor, error) {
	rest, raw, hasRaw, err := splitTensor(msg)
	if err != nil {
		return nil, err
	}
	tp := new(onnxpb.TensorProto)
	if err := proto.Unmarshal(rest, tp); err != nil {
		return nil, fmt.Errorf("corrupt tensor: %v", err)
	}
	return r.Convert(tp, raw, hasRaw)
}

// Convert builds the canonical tensor; raw is the raw_data payload (present
// when hasRaw), passed separately so it can alias a file mapping.
func (r *Reader) Convert(tp *onnxpb.TensorProto, raw []byte, hasRaw bool) (*canon.Tensor, error) {
	name := tp.GetName()
	fail := func(format string, args ...any) error {
		return fmt.Errorf("tensor %q: %s", name, fmt.Sprintf(format, args...))
	}
	dt, err := DType(tp.GetDataType())
	if err != nil {
		return nil, fail("%v", err)
	}
	if tp.Segment != nil {
		return nil, fail("segmented tensors are not supported; re-save the model with whole tensors")
	}
	shape := append([]int64{}, tp.Dims...)
	for _, d := range shape {
		if d < 0 {
			return nil, fail("negative dimension in shape %v", shape)
		}
	}
	t := &canon.Tensor{Name: name, DType: dt, Shape: shape}
	want := t.ByteSize()
	if want < 0 {
		return nil, fail("shape %v has too many elements", shape)
	}
	numel := t.NumElements()
	if dt == canon.String {
		return stringTensor(t, tp, hasRaw)
	}

	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		t.Data, err = r.external(tp, want)
		if err != nil {
			return nil, fail("%v", err)
		}
		return t, nil
	}
	if hasRaw {
		if int64(len(raw)) != want {
			return nil, fail("%s%v needs %d bytes but raw_data holds %d; the file is corrupt or truncated", dt, shape, want, len(raw))
		}
		t.Data = raw
		return t, nil
	}

	// Typed fields: the element count must match before anything is
	// allocated, so a hostile shape cannot make us allocate.
	var have int
	switch dt {
	case canon.Float32:
		have = len(tp.FloatData)
	case canon.Float64:
		have = len(tp.DoubleData)
	case canon.Int64:
		have = len(tp.Int64Data)
	case canon.Uint32, canon.Uint64:
		have = len(tp.Uint64Data)
	default:
		have = len(tp.Int32Data)
	}
	if int64(have) != numel {
		if have == 0 && numel > 0 {
			return nil, fail("%s%v has no data (neither raw_data nor typed values)", dt, shape)
		}
		return nil, fail("%s%v needs %d values but the tensor holds %d; the file is corrupt", dt, shape, numel, have)
	}
	b := make([]byte, want)
	le := binary.LittleEndian
	switch dt {
	case canon.Float32:
		for i, v := range tp.FloatData {
			le.PutUint32(b[4*i:], math.Float32bits(v))
		}
	case canon.Float64:
		for i, v := range tp.DoubleData {
			le.PutUint64(b[8*i:], math.Float64bits(v))
		}
	case canon.Int64:
		for i, v := range tp.Int64Data {
			le.PutUint64(b[8*i:], uint64(v))
		}
	case canon.Uint64:
		for i, v := range tp.Uint64Data {
			le.PutUint64(b[8*i:], v)
		}
	case canon.Uint32:
		for i, v := range tp.Uint64Data {
			le.PutUint32(b[4*i:], uint32(v))
		}
	case canon.Int32:
		for i, v := range tp.Int32Data {
			le.PutUint32(b[4*i:], uint32(v))
		}
	case canon.Int16, canon.Uint16, canon.Float16, canon.BFloat16:
		// 16-bit types (f16/bf16 as their bit patterns) travel in int32_data.
		for i, v := range tp.Int32Data {
			le.PutUint16(b[2*i:], uint16(v))
		}
	case canon.Int8, canon.Uint8:
		for i, v := range tp.Int32Data {
			b[i] = byte(v)
		}
	case canon.Bool:
		for i, v := range tp.Int32Data {
			if v != 0 {
				b[i] = 1
			}
		}
	}
	t.Data = b
	return t, nil
}

// external resolves a tensor's external data: the location must stay inside
// the model's folder, and offset/length must lie within the file and match
// the tensor's size.
func (r *Reader) external(tp *onnxpb.TensorProto, want int64) ([]byte, error) {
	var loc string
	offset, length := int64(0), int64(-1)
	for _, kv := range tp.ExternalData {
		var err error
		switch kv.GetKey() {
		case "location":
			loc = kv.GetValue()
		case "offset":
			offset, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		case "length":
			length, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		}
		if err != nil || offset < 0 || (kv.GetKey() == "length" && length < 0) {
			return nil, fmt.Errorf("external data %s %q is not a non-negative integer", kv.GetKey(), kv.GetValue())
		}
	}
	if loc == "" {
		return nil, errors.New("external data has no location")
	}
	path, err := r.resolve(loc)
	if err != nil {
		return nil, err
	}
	if length < 0 {
		length = want
	}
	if length != want {
		return nil, fmt.Errorf("external data in %s has length %d but the tensor needs %d bytes; the model and its data file do not match", loc, length, want)
	}
	if r.Graph != nil {
		m := r.files[path]
		if m == nil {
			m, err = mmapfile.Open(path)
			if err != nil {
				return nil, fmt.Errorf("external data file %s: %v", loc, err)
			}
			if r.files == nil {
				r.files = map[string]*mmapfile.Mapping{}
			}
			r.files[path] = m
			r.Graph.AddResource(m)
			r.Graph.Meta.SourceFiles = append(r.Graph.Meta.SourceFiles, path)
		}
		size := int64(len(m.Data))
		if offset > size || length > size-offset {
			return nil, fmt.Errorf("external data range [%d, %d+%d) lies past the end of %s (%d bytes); the data file is truncated or belongs to another model", offset, offset, length, loc, size)
		}
		return m.Data[offset : offset+length], nil
	}
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("external data file %s: %v", loc, err)
	}
	defer f.Close()
	if size := st.Size(); offset > size || length > size-offset {
		return nil, fmt.Errorf("external data range [%d, %d+%d) lies past the end of %s (%d bytes); the data file is truncated or belongs to another model", offset, offset, length, loc, size)
	}
	b := make([]byte, length)
	if _, err := f.ReadAt(b, offset); err != nil && !(err == io.EOF && length == 0) {
		return nil, fmt.Errorf("external data file %s: %v", loc, err)
	}
	return b, nil
}

// resolve maps an external data location to a file inside baseDir. Absolute
// paths, ".." and symlinks leading out of the folder are refused: a model
// file must not be able to make us read arbitrary files.
func (r *Reader) resolve(loc string) (string, error) {
	if filepath.IsAbs(loc) || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) || filepath.VolumeName(loc) != "" {
		return "", fmt.Errorf("external data location %q is an absolute path; only paths inside the model's folder are allowed", loc)
	}
	if !filepath.IsLocal(loc) {
		return "", fmt.Errorf("external data location %q leads outside the model's folder; only paths inside it are allowed", loc)
	}
	base := r.BaseDir
	if base == "" {
		base = "."
	}
	full := filepath.Join(base, loc)
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", fmt.Errorf("model folder %s: %v", base, err)
	}
	realFull, err := filepath.EvalSymlinks(full)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("external data file %q not found next to the model (looked for %s); copy it beside the model file", loc, full)
		}
		return "", fmt.Errorf("external data location %q: %v", loc, err)
	}
	rel, err := filepath.Rel(realBase, realFull)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("external data location %q resolves (through a symlink) to %s, outside the model's folder; only files inside it are allowed", loc, realFull)
	}
	return realFull, nil
}
