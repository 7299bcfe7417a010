// Package zipread reads the entries of a zip archive held in memory (a
// mapped PyTorch or TorchScript file) with the checks a hostile or damaged
// archive needs: every entry's CRC-32 is verified (unless the caller opts
// out), and inflating is charged to a budget before any memory is taken,
// so a small archive cannot expand into gigabytes.
package zipread

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// InflatePerInputByte and InflateSlack bound what all deflated entries of
// one archive may inflate to: 64 bytes per byte of archive plus 16 MiB.
// torch.save and torch.jit.save store entries uncompressed; re-zipped
// weights compress far less than 64:1, and a hostile entry reaches 1032:1.
const (
	InflatePerInputByte = 64
	InflateSlack        = 16 << 20
)

// Archive reads entries of the zip archive whose bytes are Data.
type Archive struct {
	// File names the archive in messages.
	File string
	// Data is the whole archive; stored entries are slices of it.
	Data []byte
	// SkipCRC reads entries without checking their CRC-32 (--ignore-crc):
	// for a damaged file a user wants anyway.
	SkipCRC bool
	// inflated is what deflated entries have inflated to so far.
	inflated int64
}

// InflateLimit is the most all deflated entries may inflate to.
func (a *Archive) InflateLimit() int64 {
	return InflatePerInputByte*int64(len(a.Data)) + InflateSlack
}

// Entry returns the whole contents of f, which must be at most max bytes:
// for a stored entry a slice of Data (read-only), for a deflated one a new
// buffer of exactly the declared size.
func (a *Archive) Entry(f *zip.File, max uint64) ([]byte, error) {
	size := f.UncompressedSize64
	if size > max {
		return nil, fmt.Errorf("%s: entry %s declares %d bytes, more than the %d it may hold; the file is corrupt or hostile", a.File, f.Name, size, max)
	}
	var data []byte
	switch f.Method {
	case zip.Store:
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("%s: entry %s: %v (the file is truncated or corrupt)", a.File, f.Name, err)
		}
		if f.CompressedSize64 != size || off < 0 || off > int64(len(a.Data)) || size > uint64(int64(len(a.Data))-off) {
			return nil, fmt.Errorf("%s: entry %s claims %d bytes at offset %d, past the end of the %d-byte file (truncated?)", a.File, f.Name, size, off, len(a.Data))
		}
		data = a.Data[off : off+int64(size) : off+int64(size)]
	case zip.Deflate:
		var err error
		if data, err = a.inflate(f); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: entry %s uses zip compression method %d; only stored and deflated entries are supported", a.File, f.Name, f.Method)
	}
	if !a.SkipCRC {
		if sum := crc32.ChecksumIEEE(data); sum != f.CRC32 {
			return nil, fmt.Errorf("%s: entry %s fails its CRC-32 check (%08x, want %08x): the file is damaged; to read it anyway, pass --ignore-crc", a.File, f.Name, sum, f.CRC32)
		}
	}
	return data, nil
}

// inflate decompresses f into a buffer of its declared size, after
// charging that size to the archive's inflate budget; the stream is cut at
// the declared size, so a lying header costs no more than it declared.
func (a *Archive) inflate(f *zip.File) ([]byte, error) {
	size := f.UncompressedSize64
	if f.CompressedSize64 > uint64(len(a.Data)) {
		return nil, fmt.Errorf("%s: entry %s claims %d compressed bytes in a %d-byte file (truncated?)", a.File, f.Name, f.CompressedSize64, len(a.Data))
	}
	if size/1032 > f.CompressedSize64+1 {
		return nil, fmt.Errorf("%s: entry %s claims to inflate %d bytes into %d, beyond what deflate can do; the header is corrupt", a.File, f.Name, f.CompressedSize64, size)
	}
	if limit := a.InflateLimit(); size > uint64(limit-a.inflated) {
		return nil, fmt.Errorf("%s: entry %s would inflate to %d bytes, bringing the archive's inflated data past %d (%d times its size plus %d MiB): refusing a likely compression bomb; store the entries uncompressed (as torch.save does)", a.File, f.Name, size, limit, InflatePerInputByte, InflateSlack>>20)
	}
	a.inflated += int64(size)
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fmt.Errorf("%s: entry %s: %v (the file is truncated or corrupt)", a.File, f.Name, err)
	}
	fr := flate.NewReader(raw)
	defer fr.Close()
	buf := make([]byte, size)
	if _, err := io.ReadFull(fr, buf); err != nil {
		return nil, fmt.Errorf("%s: entry %s: cannot inflate: %v (the file is truncated or corrupt)", a.File, f.Name, err)
	}
	var one [1]byte
	if n, err := fr.Read(one[:]); n != 0 || (err != nil && !errors.Is(err, io.EOF)) {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("inflates to more than the %d bytes declared", size)
		}
		return nil, fmt.Errorf("%s: entry %s: %v (the file is corrupt)", a.File, f.Name, err)
	}
	return buf, nil
}
