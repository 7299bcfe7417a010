// Package caffeimport reads Caffe models: a `.prototxt` net (text
// NetParameter, `layer` or V1 `layers`) with the `.caffemodel` beside it
// or given by --params/--weights, or a `.caffemodel` alone (its own net
// definition). Caffe's semantics (pooling output sizes and divisors,
// BatchNorm's scale factor, InnerProduct's axis and transpose,
// Deconvolution's IOHW weights, in-place layers) are resolved here into
// canonical ops; nothing of Caffe survives the import.
package caffeimport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/regfile"
)

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       "caffe",
		Extensions: []string{".prototxt", ".caffemodel"},
		Sniff:      Sniff,
		Probe:      Probe,
		Read:       Read,
		Ops:        Ops,
		SourceOps:  SourceOps,
		// The weights of a .prototxt are in a .caffemodel beside it.
		WeightsBeside: ".caffemodel",
	})
}

// maxTextBytes bounds a prototxt: the largest real nets (ResNet-152's
// deploy file) are well under 1 MB.
const maxTextBytes = 64 << 20

// Probe claims files by their Caffe extensions: a caffemodel has no magic
// and could otherwise look like another protobuf.
func Probe(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".prototxt") || strings.HasSuffix(l, ".caffemodel")
}

var sniffRE = regexp.MustCompile(`(?m)^\s*(layers?\s*\{|input\s*:|input_dim\s*:|input_shape\s*\{)`)

// Sniff recognizes a text NetParameter by a `layer {`, `layers {` or
// `input:` line near its start.
func Sniff(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	return sniffRE.Match(head)
}

// Read imports path: a prototxt paired with opts.Params or the same-stem
// caffemodel beside it (read without weights when there is none), or a
// caffemodel paired with the same-stem prototxt, or alone.
func Read(path string, opts formats.ReadOptions) (g *canon.Graph, err error) {
	// Every check is meant to run before a panic could; this is the net.
	defer panicerr.Recover(path, &err)
	textPath, weightsPath := path, opts.Params
	if strings.HasSuffix(strings.ToLower(path), ".caffemodel") {
		textPath, weightsPath = "", path
		if p := sibling(path, ".prototxt"); p != "" {
			textPath = p
		}
	} else if weightsPath == "" {
		weightsPath = sibling(path, ".caffemodel")
	}
	var net *caffepb.NetParameter
	var notes []string
	var textBytes int64
	if textPath != "" {
		if net, notes, textBytes, err = readText(textPath); err != nil {
			return nil, err
		}
	}
	var blobs map[string][]*rawBlob
	var mapping *mmapfile.Mapping
	var weightBytes int64
	if weightsPath != "" {
		mapping, err = mmapfile.Open(weightsPath)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				mapping.Close()
			}
		}()
		weightBytes = int64(len(mapping.Data))
		stripped, bl, err := scanModel(mapping.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", weightsPath, err)
		}
		blobs = bl
		if net == nil {
			net = &caffepb.NetParameter{}
			if err := proto.Unmarshal(stripped, net); err != nil {
				return nil, fmt.Errorf("%s: not a caffemodel (binary NetParameter): %w", weightsPath, err)
			}
		}
	}
	g, err = convert(net, path, textPath, weightsPath, blobs, opts, textBytes+weightBytes)
	if err != nil {
		return nil, err
	}
	g.Meta.Notes = append(g.Meta.Notes, notes...)
	if mapping != nil {
		g.AddResource(mapping)
		if weightsPath != path {
			g.Meta.SourceFiles = append(g.Meta.SourceFiles, weightsPath)
		}
	}
	if textPath != "" && textPath != path {
		g.Meta.SourceFiles = append(g.Meta.SourceFiles, textPath)
	}
	return g, nil
}

// sibling returns the file with the same stem as path and extension ext,
// when it exists.
func sibling(path, ext string) string {
	p := strings.TrimSuffix(path, filepath.Ext(path)) + ext
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

func readText(path string) (*caffepb.NetParameter, []string, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, 0, err
	}
	if st.IsDir() {
		return nil, nil, 0, fmt.Errorf("%s is a folder, not a prototxt", path)
	}
	if st.Size() > maxTextBytes {
		return nil, nil, 0, fmt.Errorf("%s: %d bytes is too large for a prototxt", path, st.Size())
	}
	data, err := regfile.ReadFile(path)
	if err != nil {
		return nil, nil, 0, err
	}
	net := &caffepb.NetParameter{}
	if err := prototext.Unmarshal(data, net); err != nil {
		// Forks (SSD, OpenPose) add fields BVLC's schema lacks; read the
		// rest, and let an unknown layer type be refused by name.
		first := err
		net = &caffepb.NetParameter{}
		if err2 := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, net); err2 != nil {
			return nil, nil, 0, fmt.Errorf("%s: not a Caffe prototxt: %v", path, first)
		}
		return net, []string{fmt.Sprintf("fields unknown to BVLC Caffe's schema were ignored (first: %v)", first)}, int64(len(data)), nil
	}
	return net, nil, int64(len(data)), nil
}
