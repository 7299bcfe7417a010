//go:build !amd64 || noasm

package vec

// DWChannels is dwChannelsRef.
func DWChannels(n int, offs []int32, w, bias, src []float32, origins []int32, dst []float32) {
	dwChannelsRef(n, offs, w, bias, src, origins, dst)
}
