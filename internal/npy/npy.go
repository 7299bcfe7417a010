// Package npy reads NumPy .npy arrays (format versions 1.0 to 3.0) into
// canonical tensors, so that users can feed the interpreter with data saved
// by numpy.save.
package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

const magic = "\x93NUMPY"

// maxHeader bounds the header length so a hostile file cannot make us
// allocate much before its size is checked.
const maxHeader = 1 << 20

var (
	descrRe = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	orderRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

var dtypes = map[string]canon.DType{
	"f4": canon.Float32, "f8": canon.Float64, "f2": canon.Float16,
	"i1": canon.Int8, "i2": canon.Int16, "i4": canon.Int32, "i8": canon.Int64,
	"u1": canon.Uint8, "u2": canon.Uint16, "u4": canon.Uint32, "u8": canon.Uint64,
	"b1": canon.Bool,
}

// ReadFile reads path; the tensor is named after nothing (callers name it).
func ReadFile(path string) (*canon.Tensor, error) {
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read decodes an .npy stream of the given total size.
func Read(r io.Reader, size int64) (*canon.Tensor, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("not an .npy file: too short")
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("not an .npy file: missing the \\x93NUMPY magic")
	}
	major := pre[6]
	var hlen int64
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("truncated .npy header")
		}
		hlen = int64(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("truncated .npy header")
		}
		hlen = int64(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d", major)
	}
	if hlen > maxHeader || hlen > size {
		return nil, fmt.Errorf(".npy header length %d exceeds the file", hlen)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("truncated .npy header")
	}
	h := string(hdr)
	m := descrRe.FindStringSubmatch(h)
	if m == nil {
		return nil, fmt.Errorf(".npy header has no descr: %q", strings.TrimSpace(h))
	}
	descr := m[1]
	if len(descr) < 2 {
		return nil, fmt.Errorf(".npy dtype %q not supported", descr)
	}
	order := descr[0]
	code := descr[1:]
	dt, ok := dtypes[code]
	if !ok {
		return nil, fmt.Errorf(".npy dtype %q not supported (want float, int, uint or bool)", descr)
	}
	bigEndian := order == '>' && dt.Size() > 1
	if o := orderRe.FindStringSubmatch(h); o != nil && o[1] == "True" {
		return nil, fmt.Errorf(".npy array is in Fortran order; save it with numpy.ascontiguousarray first")
	}
	sm := shapeRe.FindStringSubmatch(h)
	if sm == nil {
		return nil, fmt.Errorf(".npy header has no shape")
	}
	var shape []int64
	for _, part := range strings.Split(sm[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, err := strconv.ParseInt(part, 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf(".npy shape (%s) is malformed", sm[1])
		}
		shape = append(shape, d)
	}
	if shape == nil {
		shape = []int64{}
	}
	t := &canon.Tensor{DType: dt, Shape: shape}
	n := t.ByteSize()
	offset := int64(len(pre)) + hlen + 2
	if major > 1 {
		offset += 2
	}
	if n < 0 || n != size-offset {
		return nil, fmt.Errorf(".npy array %s%v needs %d data bytes, the file holds %d", dt, shape, n, size-offset)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("truncated .npy data")
	}
	if bigEndian {
		swapBytes(data, dt.Size())
	}
	t.Data = data
	return t, nil
}

func swapBytes(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
			b[j], b[k] = b[k], b[j]
		}
	}
}

// Write encodes t as an .npy (version 1.0) stream.
func Write(w io.Writer, t *canon.Tensor) error {
	var code string
	for k, v := range dtypes {
		if v == t.DType {
			code = k
		}
	}
	if code == "" {
		return fmt.Errorf("tensor %q: dtype %s has no .npy equivalent", t.Name, t.DType)
	}
	order := "<"
	if t.DType.Size() == 1 {
		order = "|"
	}
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = strconv.FormatInt(d, 10)
	}
	shape := strings.Join(dims, ", ")
	if len(t.Shape) == 1 {
		shape += ","
	}
	h := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': False, 'shape': (%s), }", order, code, shape)
	// Pad so that the data starts on a 64-byte boundary, as numpy does.
	total := len(magic) + 2 + 2 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var buf bytes.Buffer
	buf.WriteString(magic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(h)))
	buf.WriteString(h)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(t.Data)
	return err
}
