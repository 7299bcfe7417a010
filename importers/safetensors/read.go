// Package safetensorsimport reads .safetensors files (an 8-byte
// little-endian header length, a JSON header describing each tensor's
// dtype, shape and byte range, then the raw data) as weights-only graphs.
// Tensor data points into the memory-mapped file.
package safetensorsimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
)

// MaxHeader bounds the JSON header, as the reference implementation does.
const MaxHeader = 100 << 20

// DTypes maps safetensors dtype names to canonical types.
var DTypes = map[string]canon.DType{
	"F64": canon.Float64, "F32": canon.Float32, "F16": canon.Float16, "BF16": canon.BFloat16,
	"I64": canon.Int64, "I32": canon.Int32, "I16": canon.Int16, "I8": canon.Int8,
	"U64": canon.Uint64, "U32": canon.Uint32, "U16": canon.Uint16, "U8": canon.Uint8, "BOOL": canon.Bool,
}

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       "safetensors",
		Extensions: []string{".safetensors"},
		Sniff:      Sniff,
		Read:       Read,
	})
}

// Sniff recognizes a plausible header length followed by a JSON object.
func Sniff(head []byte) bool {
	if len(head) < 10 {
		return false
	}
	n := binary.LittleEndian.Uint64(head)
	return n >= 2 && n <= MaxHeader && head[8] == '{'
}

type entry struct {
	DType       string   `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
	name        string
}

// Read imports a safetensors file.
func Read(path string, _ formats.ReadOptions) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	g, err := parse(path, m.Data)
	if err != nil {
		m.Close()
		return nil, err
	}
	g.AddResource(m)
	return g, nil
}

func parse(path string, data []byte) (_ *canon.Graph, err error) {
	// Every check is meant to run before a panic could; this is the net.
	defer panicerr.Recover(path, &err)
	if len(data) < 8 {
		return nil, fmt.Errorf("%s: %d bytes is too short for a safetensors file", path, len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > MaxHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("%s: header length %d exceeds the file (%d bytes) or the %d-byte limit: not a safetensors file, or truncated", path, n, len(data), MaxHeader)
	}
	header := data[8 : 8+n]
	body := data[8+n:]
	entries, meta, err := parseHeader(header)
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	// Byte ranges must tile the data section exactly, in some order.
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].DataOffsets[0] < entries[j].DataOffsets[0] })
	g := &canon.Graph{Meta: canon.Metadata{SourceFormat: "safetensors", Props: meta}}
	end := int64(0)
	for _, e := range entries {
		dt, ok := DTypes[e.DType]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q has dtype %s, which modelbridge does not support (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL)", path, e.name, e.DType)
		}
		t := &canon.Tensor{Name: e.name, DType: dt, Shape: e.Shape}
		size := t.ByteSize()
		if size < 0 {
			return nil, fmt.Errorf("%s: tensor %q: shape %v is invalid or overflows", path, e.name, e.Shape)
		}
		b, en := e.DataOffsets[0], e.DataOffsets[1]
		switch {
		case b != end:
			return nil, fmt.Errorf("%s: tensor %q starts at data byte %d, expected %d (tensors must be contiguous and not overlap)", path, e.name, b, end)
		case en < b || en-b != size:
			return nil, fmt.Errorf("%s: tensor %q: byte range [%d,%d) does not hold %s%v (%d bytes)", path, e.name, b, en, dt, e.Shape, size)
		case en > int64(len(body)):
			return nil, fmt.Errorf("%s: tensor %q ends at data byte %d, the file has %d (truncated)", path, e.name, en, len(body))
		}
		t.Data = body[b:en:en]
		end = en
		g.Initializers = append(g.Initializers, t)
	}
	if end != int64(len(body)) {
		return nil, fmt.Errorf("%s: %d bytes after the last tensor (corrupt or not a safetensors file)", path, int64(len(body))-end)
	}
	restoreShared(g)
	return g, nil
}

// restoreShared gives back the second names of tied tensors. The format
// stores a tensor once; safetensors' save_model records each name it
// dropped as a metadata entry whose value is the name kept. Such an entry
// (a key that is no tensor, a value that is one) becomes a second name
// for the same bytes, and leaves the metadata.
func restoreShared(g *canon.Graph) {
	byName := g.InitializerIndex()
	var kept []canon.KeyValue
	for _, p := range g.Meta.Props {
		t := byName[p.Value]
		if t == nil || byName[p.Key] != nil || p.Key == "" {
			kept = append(kept, p)
			continue
		}
		alias := *t
		alias.Name = p.Key
		alias.Shape = append([]int64(nil), t.Shape...)
		g.Initializers = append(g.Initializers, &alias)
		byName[p.Key] = &alias
	}
	g.Meta.Props = kept
}

// parseHeader decodes the JSON header keeping the file's key order (for
// metadata) and validating every field.
func parseHeader(h []byte) ([]*entry, []canon.KeyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(h))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	var entries []*entry
	var meta []canon.KeyValue
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name := tok.(string)
		if seen[name] {
			return nil, nil, fmt.Errorf("key %q appears twice", name)
		}
		seen[name] = true
		if name == "__metadata__" {
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				return nil, nil, fmt.Errorf("__metadata__ must map strings to strings: %v", err)
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				meta = append(meta, canon.KeyValue{Key: k, Value: m[k]})
			}
			continue
		}
		e := &entry{name: name}
		if err := dec.Decode(e); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %v", name, err)
		}
		if e.DType == "" || e.Shape == nil {
			return nil, nil, fmt.Errorf("tensor %q: missing dtype or shape", name)
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return entries, meta, nil
}
