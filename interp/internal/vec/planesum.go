package vec

// sumPlanes8Ref sets dst[j] to the float64 sum of src[j*stride+i] for
// i < n, for each of eight planes: from +0, one addition an element, in
// i's order (globalPoolPlane's sum).
func sumPlanes8Ref(dst *[8]float64, src []float32, stride, n int) {
	for j := range dst {
		var s float64
		for _, v := range src[j*stride : j*stride+n] {
			s += float64(v)
		}
		dst[j] = s
	}
}
