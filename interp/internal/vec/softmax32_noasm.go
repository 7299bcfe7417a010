//go:build !amd64 || noasm

package vec

func rowMax32(row []float32) (float32, bool) { return rowMax32Ref(row) }

// scaleRow32 sets row[j] = float32(float64(row[j]) * s).
func scaleRow32(row []float32, s float64) {
	for j, v := range row {
		row[j] = float32(float64(v) * s)
	}
}
