package onnxtensor

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Walk and Field read the protobuf wire format by hand so that big byte
// fields (initializers' raw_data) are never copied: the model reader uses
// them to split a model into its graph and initializers, Decode to split a
// TensorProto from its raw_data. Everything else is small and goes through
// proto.Unmarshal.

// Field is one top-level field of a message: its number, wire type and the
// bytes of the whole field (tag included), plus, for length-delimited
// fields, the payload.
type Field struct {
	Num     protowire.Number
	Type    protowire.Type
	Whole   []byte
	Payload []byte
}

// Walk calls fn for every top-level field of msg, stopping at the first
// error. It never reads past msg.
func Walk(msg []byte, fn func(f Field) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return wireErr(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[n:])
		if m < 0 {
			return wireErr(m)
		}
		f := Field{Num: num, Type: typ, Whole: msg[:n+m]}
		if typ == protowire.BytesType {
			v, k := protowire.ConsumeBytes(msg[n:])
			if k < 0 {
				return wireErr(k)
			}
			f.Payload = v
		}
		if err := fn(f); err != nil {
			return err
		}
		msg = msg[n+m:]
	}
	return nil
}

func wireErr(n int) error {
	return fmt.Errorf("corrupt protobuf data (%v): the file is truncated or is not what it claims to be", protowire.ParseError(n))
}

// splitTensor separates a TensorProto into raw_data (aliasing msg) and the
// remaining fields. hasRaw reports whether raw_data was present at all.
func splitTensor(msg []byte) (rest, raw []byte, hasRaw bool, err error) {
	err = Walk(msg, func(f Field) error {
		if f.Num == 9 && f.Type == protowire.BytesType {
			raw, hasRaw = f.Payload, true // last one wins, as in proto.Unmarshal
			return nil
		}
		rest = append(rest, f.Whole...)
		return nil
	})
	return rest, raw, hasRaw, err
}
