package zipread

import (
	"archive/zip"
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// makeZip writes one entry with the given method and returns the archive.
func makeZip(t *testing.T, method uint16, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "a/data/0", Method: method})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func entry(t *testing.T, archive []byte, skipCRC bool, max uint64) ([]byte, error) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	a := &Archive{File: "f.pt", Data: archive, SkipCRC: skipCRC}
	return a.Entry(zr.File[0], max)
}

func TestEntryChecksCRC(t *testing.T) {
	payload := []byte("0123456789abcdef weights weights weights")
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		z := makeZip(t, method, payload)
		got, err := entry(t, z, false, 1<<20)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("method %d: intact entry: %q, %v", method, got, err)
		}
		// Damage the data, not the headers: the CRC must catch it.
		bad := bytes.Clone(z)
		i := bytes.Index(bad, []byte("0123"))
		if method == zip.Deflate {
			i = 40 // inside the compressed stream, after the local header
		}
		bad[i] ^= 0x01
		if _, err := entry(t, bad, false, 1<<20); err == nil || (method == zip.Store && !strings.Contains(err.Error(), "CRC-32")) {
			t.Errorf("method %d: a damaged entry gave %v, want a CRC-32 error", method, err)
		}
		if method == zip.Store {
			if got, err := entry(t, bad, true, 1<<20); err != nil || bytes.Equal(got, payload) {
				t.Errorf("SkipCRC should return the damaged bytes: %q, %v", got, err)
			}
		}
	}
}

// A deflated entry that inflates far beyond the archive's budget is
// refused before its buffer is allocated.
func TestInflateBudgetChargedFirst(t *testing.T) {
	z := makeZip(t, zip.Deflate, make([]byte, 256<<20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := entry(t, z, false, 1<<40)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "compression bomb") {
		t.Fatalf("got %v, want a refusal", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 32<<20 {
		t.Errorf("refusing took %d MB", d>>20)
	}
	if _, err := entry(t, makeZip(t, zip.Deflate, make([]byte, 4096)), false, 100); err == nil {
		t.Error("an entry over the caller's maximum was read")
	}
}
