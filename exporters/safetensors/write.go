// Package safetensorsexport writes a graph's initializers as a .safetensors
// file: tensors in the graph's initializer order, the JSON header padded
// with spaces to a multiple of 8 bytes as the reference writer does, data
// streamed from the tensors (no second copy), written atomically.
package safetensorsexport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/atomicfile"
)

var dtypeNames = map[canon.DType]string{
	canon.Float64: "F64", canon.Float32: "F32", canon.Float16: "F16", canon.BFloat16: "BF16",
	canon.Int64: "I64", canon.Int32: "I32", canon.Int16: "I16", canon.Int8: "I8",
	canon.Uint64: "U64", canon.Uint32: "U32", canon.Uint16: "U16", canon.Uint8: "U8", canon.Bool: "BOOL",
}

func init() {
	formats.RegisterExporter(&formats.Exporter{
		Name:       "safetensors",
		Extensions: []string{".safetensors"},
		Write:      Write,
		// Its header metadata records each tensor's layout.
		KernelLayouts: true,
	})
}

// Header builds the padded JSON header for the graph's initializers.
func Header(g *canon.Graph) ([]byte, error) {
	tensors, alias := stored(g)
	var buf bytes.Buffer
	buf.WriteByte('{')
	if len(g.Meta.Props) > 0 || len(alias) > 0 {
		meta := map[string]string{}
		names := g.InitializerIndex()
		for _, p := range g.Meta.Props {
			// An entry naming a tensor reads back as a tie (see stored):
			// only real ties may take that form (a source's own record
			// of its ties, such as "torch.tied.x", is one of them).
			if names[p.Value] != nil && names[p.Key] == nil {
				continue
			}
			meta[p.Key] = p.Value
		}
		for name, owner := range alias {
			meta[name] = owner
		}
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`"__metadata__":`)
		buf.Write(b)
	}
	offset := int64(0)
	seen := map[string]bool{}
	for _, t := range tensors {
		name, ok := dtypeNames[t.DType]
		if !ok {
			return nil, fmt.Errorf("tensor %q: dtype %s has no safetensors equivalent", t.Name, t.DType)
		}
		if t.Name == "" || t.Name == "__metadata__" || seen[t.Name] {
			return nil, fmt.Errorf("tensor name %q is empty, reserved or repeated", t.Name)
		}
		seen[t.Name] = true
		if err := t.CheckData(); err != nil {
			return nil, err
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(t.Name)
		shape := t.Shape
		if shape == nil {
			shape = []int64{}
		}
		sh, _ := json.Marshal(shape)
		end := offset + int64(len(t.Data))
		fmt.Fprintf(&buf, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, key, name, sh, offset, end)
		offset = end
	}
	buf.WriteByte('}')
	for (8+buf.Len())%8 != 0 {
		buf.WriteByte(' ')
	}
	return buf.Bytes(), nil
}

// Write writes g's initializers to path. Graph nodes, inputs and outputs
// are not part of the format; only the weights are written.
func Write(g *canon.Graph, path string, opts formats.WriteOptions) error {
	header, err := Header(g)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := f.Write(n[:]); err != nil {
		return err
	}
	if _, err := f.Write(header); err != nil {
		return err
	}
	tensors, _ := stored(g)
	var total, done int64
	for _, t := range tensors {
		total += int64(len(t.Data))
	}
	for _, t := range tensors {
		if _, err := f.Write(t.Data); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		done += int64(len(t.Data))
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	return f.Commit()
}

// stored is the tensors the file holds and the names it records in its
// metadata instead. The format forbids two names over one byte range, so a
// tensor shared under several names is stored once, under its first name,
// and each other name maps to that one in __metadata__, as safetensors'
// own save_model does for tied weights.
func stored(g *canon.Graph) ([]*canon.Tensor, map[string]string) {
	alias := g.SharedNames()
	if len(alias) == 0 {
		return g.Initializers, nil
	}
	out := make([]*canon.Tensor, 0, len(g.Initializers)-len(alias))
	for _, t := range g.Initializers {
		if _, ok := alias[t.Name]; !ok {
			out = append(out, t)
		}
	}
	return out, alias
}
