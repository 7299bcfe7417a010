package pickle

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzDecode decodes arbitrary bytes as a pickle with the globals a
// PyTorch reader allows, a persistent-id hook, and formatting of whatever
// came out. The property: an error or a value, never a panic or a hang,
// and memory proportional to the input (the memo and stack hold values
// the input spelled out).
func FuzzDecode(f *testing.F) {
	f.Add([]byte("\x80\x02}q\x00X\x01\x00\x00\x00aq\x01K\x01s.")) // {'a': 1}
	f.Add([]byte("(lp0\nI1\naF2.5\na(I1\nI2\ntp1\na."))           // protocol 0 list
	f.Add([]byte("\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00wq\x02(X\x07\x00\x00\x00storageq\x03ctorch\nFloatStorage\nq\x04X\x01\x00\x00\x000q\x05X\x03\x00\x00\x00cpuq\x06K\x06tq\x07Qs."))
	for _, b := range readcheck.Seeds(64<<10, "torch-files/gopickle/*legacy*", "torch/*/state_dict_legacy.pt") {
		f.Add(b)
	}
	allow := Allow([]string{
		"torch._utils._rebuild_tensor_v2", "torch.FloatStorage", "torch.LongStorage",
		"torch.HalfStorage", "torch.DoubleStorage", "torch.IntStorage", "torch.ByteStorage",
		"torch._utils._rebuild_parameter", "torch.nn.modules.conv.Conv2d",
	}, OrderedDict)
	opts := Options{
		FindClass:      allow,
		PersistentLoad: func(pid Value) (Value, error) { return pid, nil },
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			v, n, err := Decode(b, opts)
			readcheck.CheckError(t, err)
			if err != nil {
				return
			}
			_ = Format(v)
			if n <= 0 {
				t.Fatalf("Decode consumed %d bytes without error", n)
			}
			b = b[n:]
		}
	})
}
