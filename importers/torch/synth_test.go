package torchimport

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
)

// synthTensor describes one state-dict entry of a hand-built torch file.
type synthTensor struct {
	Name        string
	StorageType string // "FloatStorage", ...
	Key         string
	Numel       int64 // storage elements
	Offset      int64
	Size        []int64
	Stride      []int64
}

// statePickle writes data.pkl the way torch.save does for a state dict:
// an OrderedDict of _rebuild_tensor_v2 calls on persistent storages.
func statePickle(ts []synthTensor, extraGlobal string) []byte {
	var b bytes.Buffer
	str := func(s string) {
		b.WriteByte('X')
		binary.Write(&b, binary.LittleEndian, uint32(len(s)))
		b.WriteString(s)
	}
	num := func(v int64) {
		b.WriteString("\x8a\x08")
		binary.Write(&b, binary.LittleEndian, v)
	}
	tuple := func(vs []int64) {
		b.WriteByte('(')
		for _, v := range vs {
			num(v)
		}
		b.WriteByte('t')
	}
	b.WriteString("\x80\x02ccollections\nOrderedDict\n)R(")
	for _, t := range ts {
		str(t.Name)
		b.WriteString("ctorch._utils\n_rebuild_tensor_v2\n(")
		b.WriteString("(")
		str("storage")
		b.WriteString("ctorch\n" + t.StorageType + "\n")
		str(t.Key)
		str("cpu")
		num(t.Numel)
		b.WriteString("tQ")
		num(t.Offset)
		tuple(t.Size)
		tuple(t.Stride)
		b.WriteString("\x89ccollections\nOrderedDict\n)RtR")
	}
	if extraGlobal != "" {
		str("evil")
		b.WriteString("c" + extraGlobal + "\n(S'id'\ntR")
	}
	b.WriteString("u.")
	return b.Bytes()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeTorchZip writes the torch zip layout: prefix/data.pkl, then each
// storage as a stored prefix/data/<key> entry whose data starts on a
// 64-byte boundary (padding in the Extra field, as torch's writer does),
// then prefix/version. fill writes a storage's bytes into buf; deflate
// compresses storages instead.
func writeTorchZip(path, prefix string, pkl []byte, keys []string, sizes map[string]int, fill func(key string, buf []byte), deflate bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := &countingWriter{w: bw}
	zw := zip.NewWriter(cw)
	add := func(name string, data []byte, method uint16) error {
		if err := zw.Flush(); err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: name, Method: method}
		if method == zip.Store {
			pad := (64 - (cw.n+30+int64(len(name))+4)%64) % 64
			extra := make([]byte, 4+pad)
			binary.LittleEndian.PutUint16(extra, 0x4246)
			binary.LittleEndian.PutUint16(extra[2:], uint16(pad))
			hdr.Extra = extra
			hdr.CRC32 = crc32.ChecksumIEEE(data)
			hdr.CompressedSize64 = uint64(len(data))
			hdr.UncompressedSize64 = uint64(len(data))
			w, err := zw.CreateRaw(hdr)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add(prefix+"/data.pkl", pkl, zip.Store); err != nil {
		return err
	}
	var buf []byte
	for _, k := range keys {
		if cap(buf) < sizes[k] {
			buf = make([]byte, sizes[k])
		}
		buf = buf[:sizes[k]]
		fill(k, buf)
		method := uint16(zip.Store)
		if deflate {
			method = zip.Deflate
		}
		if err := add(prefix+"/data/"+k, buf, method); err != nil {
			return err
		}
	}
	if err := add(prefix+"/version", []byte("3\n"), zip.Store); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}
