package caffeimport

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// A caffemodel is a NetParameter whose layers carry their weights as
// BlobProto messages. Decoding it with the generated types would copy
// every float twice (into []float32, then into tensor bytes), so the
// weights are found with protowire instead: a packed `data` field is
// little-endian float32, exactly the bytes of a canonical tensor, and the
// tensor points into the (mapped) file. The rest of the net, with the
// blobs cut out, is small and is decoded with the generated types.

// Field numbers from caffe.proto.
const (
	netLayerV2   = 100 // NetParameter.layer (LayerParameter)
	netLayerV1   = 2   // NetParameter.layers (V1LayerParameter)
	v2Name       = 1
	v2Blobs      = 7
	v1Name       = 4
	v1Blobs      = 6
	blobNum      = 1
	blobChannels = 2
	blobHeight   = 3
	blobWidth    = 4
	blobData     = 5
	blobShape    = 7
	blobDouble   = 8
	shapeDim     = 1
)

// rawBlob is one BlobProto: its shape (new or legacy form) and its float32
// data, little-endian.
type rawBlob struct {
	shape     []int64 // from BlobShape, when given
	legacy    [4]int64
	hasLegacy bool
	data      []byte
	floats    int64
	double    bool // data came from double_data and was narrowed
}

// Shape is the blob's shape: BlobShape when present, else the legacy
// (num, channels, height, width).
func (b *rawBlob) Shape() []int64 {
	if b.shape != nil {
		return b.shape
	}
	if b.hasLegacy {
		return b.legacy[:]
	}
	return []int64{b.floats}
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// scanModel splits a binary NetParameter into the net without its blobs
// (to be decoded with the generated types) and the blobs of each layer, by
// layer name, in file order.
func scanModel(buf []byte) (stripped []byte, blobs map[string][]*rawBlob, err error) {
	blobs = map[string][]*rawBlob{}
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return nil, nil, fmt.Errorf("corrupt NetParameter: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, buf[n:])
		if m < 0 {
			return nil, nil, fmt.Errorf("corrupt NetParameter field %d: %v", num, protowire.ParseError(m))
		}
		field := buf[:n+m]
		buf = buf[n+m:]
		if (num != netLayerV2 && num != netLayerV1) || typ != protowire.BytesType {
			stripped = append(stripped, field...)
			continue
		}
		body, _ := protowire.ConsumeBytes(field[n:])
		nameField, blobField := protowire.Number(v2Name), protowire.Number(v2Blobs)
		if num == netLayerV1 {
			nameField, blobField = v1Name, v1Blobs
		}
		kept, name, bl, err := scanLayer(body, nameField, blobField)
		if err != nil {
			return nil, nil, err
		}
		if len(bl) > 0 {
			if _, dup := blobs[name]; dup {
				return nil, nil, fmt.Errorf("two layers named %q hold weights", name)
			}
			blobs[name] = bl
		}
		stripped = protowire.AppendTag(stripped, num, protowire.BytesType)
		stripped = protowire.AppendBytes(stripped, kept)
	}
	return stripped, blobs, nil
}

func scanLayer(buf []byte, nameField, blobField protowire.Number) (kept []byte, name string, blobs []*rawBlob, err error) {
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return nil, "", nil, fmt.Errorf("corrupt layer: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, buf[n:])
		if m < 0 {
			return nil, "", nil, fmt.Errorf("corrupt layer field %d: %v", num, protowire.ParseError(m))
		}
		field := buf[:n+m]
		buf = buf[n+m:]
		switch {
		case num == nameField && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(field[n:])
			name = string(v)
			kept = append(kept, field...)
		case num == blobField && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(field[n:])
			b, err := scanBlob(v)
			if err != nil {
				return nil, "", nil, fmt.Errorf("layer %q blob %d: %w", name, len(blobs), err)
			}
			blobs = append(blobs, b)
		default:
			kept = append(kept, field...)
		}
	}
	return kept, name, blobs, nil
}

func scanBlob(buf []byte) (*rawBlob, error) {
	b := &rawBlob{}
	var chunks [][]byte // packed float32 runs, in order
	var doubles []float64
	var singles []byte // unpacked float32 values
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return nil, fmt.Errorf("corrupt BlobProto: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, buf[n:])
		if m < 0 {
			return nil, fmt.Errorf("corrupt BlobProto field %d: %v", num, protowire.ParseError(m))
		}
		val := buf[n : n+m]
		buf = buf[n+m:]
		switch {
		case num == blobData && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(val)
			if len(v)%4 != 0 {
				return nil, fmt.Errorf("packed float data of %d bytes is not a whole number of floats", len(v))
			}
			chunks = append(chunks, v)
		case num == blobData && typ == protowire.Fixed32Type:
			singles = append(singles, val...)
		case num == blobDouble && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(val)
			if len(v)%8 != 0 {
				return nil, fmt.Errorf("packed double data of %d bytes is not a whole number of doubles", len(v))
			}
			for i := 0; i < len(v); i += 8 {
				doubles = append(doubles, math.Float64frombits(binary.LittleEndian.Uint64(v[i:])))
			}
		case num == blobDouble && typ == protowire.Fixed64Type:
			doubles = append(doubles, math.Float64frombits(binary.LittleEndian.Uint64(val)))
		case num == blobShape && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(val)
			dims, err := scanShape(v)
			if err != nil {
				return nil, err
			}
			b.shape = append(b.shape[:0:0], dims...)
		case num >= blobNum && num <= blobWidth && typ == protowire.VarintType:
			v, _ := protowire.ConsumeVarint(val)
			b.legacy[num-blobNum] = int64(int32(v))
			b.hasLegacy = true
		}
	}
	switch {
	case len(doubles) > 0 && (len(chunks) > 0 || len(singles) > 0):
		return nil, fmt.Errorf("holds both float and double data")
	case len(doubles) > 0:
		b.double = true
		b.data = make([]byte, 4*len(doubles))
		for i, d := range doubles {
			binary.LittleEndian.PutUint32(b.data[4*i:], math.Float32bits(float32(d)))
		}
	case len(chunks) == 1 && len(singles) == 0 && littleEndian:
		b.data = chunks[0] // in place: points into the file
	default:
		for _, c := range chunks {
			b.data = append(b.data, c...)
		}
		b.data = append(b.data, singles...)
	}
	b.floats = int64(len(b.data) / 4)
	return b, nil
}

func scanShape(buf []byte) ([]int64, error) {
	dims := []int64{}
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return nil, fmt.Errorf("corrupt BlobShape: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, buf[n:])
		if m < 0 {
			return nil, fmt.Errorf("corrupt BlobShape: %v", protowire.ParseError(m))
		}
		val := buf[n : n+m]
		buf = buf[n+m:]
		if num != shapeDim {
			continue
		}
		switch typ {
		case protowire.VarintType:
			v, _ := protowire.ConsumeVarint(val)
			dims = append(dims, int64(v))
		case protowire.BytesType:
			v, _ := protowire.ConsumeBytes(val)
			for len(v) > 0 {
				d, k := protowire.ConsumeVarint(v)
				if k < 0 {
					return nil, fmt.Errorf("corrupt BlobShape dims: %v", protowire.ParseError(k))
				}
				dims = append(dims, int64(d))
				v = v[k:]
			}
		}
		if len(dims) > 32 {
			return nil, fmt.Errorf("BlobShape has more than 32 dims")
		}
	}
	for _, d := range dims {
		if d < 0 {
			return nil, fmt.Errorf("BlobShape has a negative dim")
		}
	}
	return dims, nil
}
