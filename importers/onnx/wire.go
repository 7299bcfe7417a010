package onnximport

import (
	"errors"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// The model is split by hand (onnxtensor.Walk) so that the big byte fields
// (initializers' raw_data) are never copied: everything else is small and
// goes through proto.Unmarshal.

// splitModel separates a ModelProto into the graph field's payload and the
// remaining fields.
func splitModel(msg []byte) (rest, graph []byte, err error) {
	seen := false
	err = onnxtensor.Walk(msg, func(f onnxtensor.Field) error {
		if f.Num == 7 && f.Type == protowire.BytesType {
			if seen {
				return errors.New("the model holds more than one graph field; it is not a valid ONNX model")
			}
			seen = true
			graph = f.Payload
			return nil
		}
		rest = append(rest, f.Whole...)
		return nil
	})
	if err == nil && !seen {
		err = errors.New("the file holds no graph: it is not an ONNX model, or it is truncated")
	}
	return rest, graph, err
}

// splitGraph separates a GraphProto into its initializers' encoded
// TensorProtos and the remaining fields. The remaining fields are returned
// as runs of consecutive fields aliasing msg, not copied: the nodes of a
// big graph are most of its bytes, and decoding the runs one after another
// (proto.UnmarshalOptions{Merge: true}) reads the same message as decoding
// their concatenation. Without keepValueInfo, the value_info fields (the
// types of intermediate values, which only cutting a graph reads) are left
// out too: decoded, they take more memory than the nodes. With
// splitNodes, the nodes are left out as well, and where each node's field
// starts in msg is returned (see fileNodes); msg must be under 4 GiB.
func splitGraph(msg []byte, keepValueInfo, splitNodes bool) (rest [][]byte, nodes []uint32, inits [][]byte, err error) {
	pos, start := 0, 0 // the current run of fields to decode is msg[start:pos]
	err = onnxtensor.Walk(msg, func(f onnxtensor.Field) error {
		isInit := f.Num == 5 && f.Type == protowire.BytesType
		isNode := splitNodes && f.Num == 1 && f.Type == protowire.BytesType
		if isInit || isNode || (!keepValueInfo && f.Num == 13 && f.Type == protowire.BytesType) {
			if pos > start {
				rest = append(rest, msg[start:pos:pos])
			}
			if isInit {
				inits = append(inits, f.Payload)
			}
			if isNode {
				nodes = append(nodes, uint32(pos))
			}
			pos += len(f.Whole)
			start = pos
			return nil
		}
		pos += len(f.Whole)
		return nil
	})
	if err == nil && pos > start {
		rest = append(rest, msg[start:pos:pos])
	}
	return rest, nodes, inits, err
}

// modelFields lists ModelProto's field numbers with their wire types, for
// sniffing.
var modelFields = map[protowire.Number]protowire.Type{
	1: protowire.VarintType, 2: protowire.BytesType, 3: protowire.BytesType,
	4: protowire.BytesType, 5: protowire.VarintType, 6: protowire.BytesType,
	7: protowire.BytesType, 8: protowire.BytesType, 14: protowire.BytesType,
	20: protowire.BytesType, 25: protowire.BytesType,
}

// Sniff reports whether head looks like the start of an ONNX ModelProto.
// ONNX has no magic number; writers emit ir_version (field 1, tag 0x08)
// first, so the head must start with it, hold a plausible IR version, and
// continue with well-formed ModelProto fields. Zip (PK) and pickle (0x80)
// files fail at the first byte; a bare TensorProto fails because its second
// field (dims again, or data_type) repeats field 1 or has the wrong wire type.
func Sniff(head []byte) bool {
	if len(head) < 2 || head[0] != 0x08 {
		return false
	}
	ir, n := protowire.ConsumeVarint(head[1:])
	if n < 0 || ir < 1 || ir > 64 {
		return false
	}
	b := head[1+n:]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		want, ok := modelFields[num]
		if !ok || want != typ || num == 1 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			// A field running past the head is fine (the graph usually
			// does); a malformed one is not.
			return errors.Is(protowire.ParseError(m), io.ErrUnexpectedEOF)
		}
		b = b[n+m:]
	}
	return true
}
