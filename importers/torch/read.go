// Package torchimport reads PyTorch files written by torch.save — state
// dicts and checkpoints in the zip format (torch >= 1.6) and the legacy
// pickle format — as weights-only canonical graphs, without Python and
// without running anything the file names. TorchScript archives (a zip
// with a code/ folder) belong to the "torchscript" importer, which claims
// them through its Probe; one given to this importer by name is passed on
// to it through the formats registry.
//
// Tensor data stays in the memory-mapped file when a tensor is a
// contiguous view of a stored (uncompressed) entry; only strided views,
// deflated entries and big-endian files are copied. Tied weights (two names
// viewing the same storage bytes the same way) share one Data slice and are
// listed in Meta.Props as "torch.tied.<name>" = "<first name>".
package torchimport

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// FormatName is the name this importer registers.
const FormatName = "torch"

// torchScriptName is the importer TorchScript archives are passed to.
const torchScriptName = "torchscript"

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       FormatName,
		Extensions: []string{".pt", ".pth", ".bin", ".ckpt"},
		Sniff:      Sniff,
		Read:       Read,
	})
}

// Sniff recognizes a torch zip archive (its first entry lies in a folder and
// is one torch writes) or a legacy file (a pickle of the magic number).
func Sniff(head []byte) bool {
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		if len(head) < 30 {
			return false
		}
		n := int(head[26]) | int(head[27])<<8
		if 30+n > len(head) {
			return bytes.Contains(head, []byte("data.pkl"))
		}
		name := string(head[30 : 30+n])
		i := strings.IndexByte(name, '/')
		if i <= 0 {
			return false
		}
		rest := name[i+1:]
		for _, p := range []string{"data.pkl", "data/", "version", "code/", "constants.pkl", "byteorder", ".data/", ".format_version", ".storage_alignment"} {
			if strings.HasPrefix(rest, p) {
				return true
			}
		}
		return false
	}
	return isLegacyMagic(head)
}

// Read imports a PyTorch file as a weights-only graph. A TorchScript
// archive is read by the registered TorchScript importer instead.
func Read(path string, opts formats.ReadOptions) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	g, err := read(path, m, opts)
	if err != nil {
		m.Close()
		var ts *torchScriptError
		if errors.As(err, &ts) {
			if imp, ferr := formats.FindImporter(path, torchScriptName); ferr == nil {
				return imp.Read(path, opts)
			}
		}
		return nil, err
	}
	g.AddResource(m)
	return g, nil
}

// torchScriptError is a TorchScript archive met by the state-dict reader
// when no TorchScript importer is registered.
type torchScriptError struct{ path, prefix string }

func (e *torchScriptError) Error() string {
	return fmt.Sprintf("%s is a TorchScript archive (it has a %scode/ folder), not a state dict; this build of modelbridge has no %s importer to read it", e.path, e.prefix, torchScriptName)
}

func read(path string, m *mmapfile.Mapping, opts formats.ReadOptions) (g *canon.Graph, err error) {
	// Every check is meant to run before a panic could; this is the net.
	defer panicerr.Recover(path, &err)
	var root pickle.Value
	bigEndian := false
	switch {
	case bytes.HasPrefix(m.Data, []byte("PK\x03\x04")):
		zr, err := openZip(path, m)
		if err != nil {
			return nil, err
		}
		prefix, err := findPrefix(path, zr)
		if err != nil {
			return nil, err
		}
		if hasCode(zr, prefix) {
			return nil, &torchScriptError{path: path, prefix: prefix}
		}
		a, err := newZipArchive(path, m, zr, prefix, opts.IgnoreCRC)
		if err != nil {
			return nil, err
		}
		pkl, err := a.readSmall(a.entries[prefix+"data.pkl"], uint64(len(m.Data)))
		if err != nil {
			return nil, err
		}
		root, err = pickle.Unpickle(pkl, pickle.Options{FindClass: findClass, PersistentLoad: a.persistentLoad})
		if err != nil {
			return nil, explain(path, prefix+"data.pkl", err)
		}
		bigEndian = a.bigEndian
	case len(m.Data) >= 2 && (m.Data[0] == 0x80 || m.Data[0] == 'L'):
		if !isLegacyMagic(m.Data[:min(len(m.Data), 64)]) {
			return nil, fmt.Errorf("%s: a pickle that torch.save did not write (no PyTorch magic number); modelbridge reads torch.save files", path)
		}
		r, lf, err := readLegacy(path, m)
		if err != nil {
			return nil, explain(path, "", err)
		}
		root, bigEndian = r, lf.bigEndian
	default:
		return nil, fmt.Errorf("%s: not a PyTorch file (neither a torch zip archive nor a legacy torch.save pickle); it may be corrupt or in another format", path)
	}
	c, err := collect(root, opts.Key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return build(path, m, c, bigEndian)
}

func build(path string, m *mmapfile.Mapping, c *collection, bigEndian bool) (*canon.Graph, error) {
	mz := newMaterializer(int64(len(m.Data)), bigEndian)
	g := &canon.Graph{
		Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
		Meta: canon.Metadata{SourceFormat: FormatName, Producer: "pytorch"},
	}
	seen := map[string]bool{}
	for _, nr := range c.Tensors {
		if seen[nr.Name] {
			return nil, fmt.Errorf("%s: tensor name %q appears twice after flattening nested dicts", path, nr.Name)
		}
		seen[nr.Name] = true
		t, err := mz.tensor(nr.Name, nr.Rec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		g.Initializers = append(g.Initializers, t)
	}
	g.Meta.Props = append(g.Meta.Props, c.Props...)
	for _, p := range c.Props {
		if name, ok := strings.CutPrefix(p.Key, "torch.skipped."); ok {
			g.Meta.Notes = append(g.Meta.Notes, fmt.Sprintf("skipped %s (not a tensor): %s", name, p.Value))
		}
	}
	for _, tie := range mz.Ties {
		g.Meta.Props = append(g.Meta.Props, canon.KeyValue{Key: "torch.tied." + tie[0], Value: tie[1]})
	}
	return g, nil
}

// explain turns a refused global into advice.
func explain(path, entry string, err error) error {
	where := path
	if entry != "" {
		where += " (" + entry + ")"
	}
	var fe *pickle.ForbiddenGlobalError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: the pickle names %s.%s, which is not a tensor, storage or container this reader knows; it was refused and nothing was run. If it is a class of your own code (a pickled model or config object), save only the weights: torch.save(model.state_dict(), path) [%w]", where, fe.Module, fe.Name, err)
	}
	return fmt.Errorf("%s: %w", where, err)
}
