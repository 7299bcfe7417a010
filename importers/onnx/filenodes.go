package onnximport

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// fileNodes are the graph's nodes as the file holds them. A graph's nodes
// are kept encoded (aliasing the file) and each is decoded when it is
// converted: decoded all at once, a deep graph's nodes took more memory
// than the canonical graph made from them. The passes that need every
// node (counting readers, sorting, naming) read only each node's names
// and op type, straight from its encoding (head).
type fileNodes struct {
	// graph is the encoded GraphProto, and at[i] where node i's field
	// starts in it: 4 bytes a node instead of a 24-byte slice.
	graph []byte
	at32  []uint32
	// mapping is the file's mapping, when graph lies in one: the part of
	// it read already is given back as the nodes are converted in file
	// order (evictBefore).
	mapping *mmapfile.Mapping
	evicted int
	// decoded holds every node decoded, when some pass needs them all
	// as messages (a graph cut, a fusion that looks across nodes).
	decoded []*onnxpb.NodeProto
}

// nodeHead is what the passes over every node read of one node. input
// lists every value the node reads: its inputs, then the outer values its
// subgraphs read (nodeReads).
type nodeHead struct {
	name, opType, domain string
	input, output        []string
}

func (f *fileNodes) len() int {
	if f.decoded != nil {
		return len(f.decoded)
	}
	return len(f.at32)
}

// raw returns node i's encoded NodeProto.
func (f *fileNodes) raw(i int) []byte {
	b := f.graph[f.at32[i]:]
	_, _, n := protowire.ConsumeTag(b)
	v, _ := protowire.ConsumeBytes(b[n:]) // checked when the graph was split
	return v
}

// head reads node i's names and op type.
func (f *fileNodes) head(i int) (nodeHead, error) {
	if f.decoded != nil {
		n := f.decoded[i]
		return nodeHead{name: n.GetName(), opType: n.GetOpType(), domain: n.GetDomain(), input: nodeReads(n), output: n.Output}, nil
	}
	var h nodeHead
	subgraphs := false
	b := f.raw(i)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return h, f.decodeError(i)
		}
		b = b[n:]
		if typ == protowire.BytesType && num >= 1 && num <= 7 && num != 5 && num != 6 {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return h, f.decodeError(i)
			}
			switch num {
			case 1:
				h.input = append(h.input, string(v))
			case 2:
				h.output = append(h.output, string(v))
			case 3:
				h.name = string(v)
			case 4:
				h.opType = string(v)
			case 7:
				h.domain = string(v)
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return h, f.decodeError(i)
		}
		if num == 5 && typ == protowire.BytesType && !subgraphs {
			attr, _ := protowire.ConsumeBytes(b[:m])
			subgraphs = holdsGraph(attr)
		}
		b = b[m:]
	}
	if subgraphs {
		// A control-flow node: its subgraphs' reads of outer values
		// count as its inputs.
		n, err := f.at(i)
		if err != nil {
			return h, err
		}
		h.input = nodeReads(n)
	}
	return h, nil
}

// holdsGraph reports whether an encoded AttributeProto holds a graph (its
// field g, 6, or graphs, 11).
func holdsGraph(attr []byte) bool {
	for len(attr) > 0 {
		num, typ, n := protowire.ConsumeTag(attr)
		if n < 0 {
			return false
		}
		attr = attr[n:]
		if (num == 6 || num == 11) && typ == protowire.BytesType {
			return true
		}
		m := protowire.ConsumeFieldValue(num, typ, attr)
		if m < 0 {
			return false
		}
		attr = attr[m:]
	}
	return false
}

// decodeError is the error decoding node i gives, or a generic one when
// decoding passes where reading its head did not.
func (f *fileNodes) decodeError(i int) error {
	if _, err := f.at(i); err != nil {
		return err
	}
	return fmt.Errorf("not a valid ONNX graph: node %d is malformed", i)
}

// at decodes node i.
func (f *fileNodes) at(i int) (*onnxpb.NodeProto, error) {
	if f.decoded != nil {
		return f.decoded[i], nil
	}
	n := new(onnxpb.NodeProto)
	if err := proto.Unmarshal(f.raw(i), n); err != nil {
		return nil, fmt.Errorf("not a valid ONNX graph: %v", err)
	}
	return n, nil
}

// all decodes every node (kept until released one by one).
func (f *fileNodes) all() ([]*onnxpb.NodeProto, error) {
	if f.decoded != nil {
		return f.decoded, nil
	}
	out := make([]*onnxpb.NodeProto, f.len())
	for i := range out {
		n, err := f.at(i)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	f.decoded, f.graph, f.at32 = out, nil, nil
	return out, nil
}

// evictBefore gives back the mapped pages of the nodes before node i
// (all of them when i is past the last node).
func (f *fileNodes) evictBefore(i int) {
	if f.mapping == nil || f.decoded != nil {
		return
	}
	end := len(f.graph)
	if i < len(f.at32) {
		end = int(f.at32[i])
	}
	if end > f.evicted {
		f.mapping.Evict(f.graph[f.evicted:end])
		f.evicted = end
	}
}

// release lets node i's decoded message go once it is converted.
func (f *fileNodes) release(i int) {
	if f.decoded != nil {
		f.decoded[i] = nil
	}
}
