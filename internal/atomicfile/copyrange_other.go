//go:build !(linux && (amd64 || arm64))

package atomicfile

import (
	"errors"
	"os"
)

// copyFileRange has no kernel copy here: the data is written instead.
func copyFileRange(dst, src *os.File, off int64, n int) (int, error) {
	return 0, errors.ErrUnsupported
}
