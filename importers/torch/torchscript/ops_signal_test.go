package torchscript

import (
	"os"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// traceCompareORT is traceAndCompareWithin, then the same graph written as
// ONNX (opset 20) and run in ONNX Runtime (when it is installed), compared with
// PyTorch's outputs too.
func traceCompareORT(t *testing.T, script string, rtol, atol float64) {
	t.Helper()
	m := torchtrace.Trace(t, script)
	g := m.Compare(t, ReadFile, rtol, atol)
	if t.Failed() {
		return
	}
	if os.Getenv("MODELBRIDGE_ORT_DIR") == "" {
		t.Log("ONNX Runtime is not configured (MODELBRIDGE_ORT_DIR): the ONNX export is not run")
		return
	}
	m.CompareORT(t, g, formats.WriteOptions{Opset: 20}, rtol, atol)
}

// TestTracedFFT reads torch.fft's transforms (lengths padded and cut, the
// three norm modes, one-sided and inverse forms, 2-D and N-D, shifts and
// frequencies), complex
// values made and taken apart, against PyTorch and ONNX Runtime.
func TestTracedFFT(t *testing.T) {
	traceCompareORT(t, `
class M(torch.nn.Module):
    def forward(self, x):
        r = torch.view_as_real
        z = torch.fft.fft(x, dim=1)
        return (r(z), r(torch.fft.fft(x, n=9, dim=1, norm="ortho")), r(torch.fft.fft(x, n=4, norm="forward")),
            r(torch.fft.ifft(z, dim=1)), r(torch.fft.ifft(x, n=7, norm="ortho").resolve_conj()), r(torch.fft.ifft(x, norm="forward").resolve_conj()),
            r(torch.fft.rfft(x, norm="ortho")), r(torch.fft.rfft(x, n=5, dim=0)),
            torch.fft.irfft(torch.fft.rfft(x)), torch.fft.irfft(torch.fft.rfft(x), n=7, norm="forward"),
            torch.fft.irfft(x, n=9, dim=1),
            r(torch.fft.fft2(x)), r(torch.fft.fftn(x, s=(4, 5))), r(torch.fft.ifft2(x, norm="ortho")),
            r(torch.fft.ifftn(x, dim=(0, 2))), r(torch.fft.rfft2(x)), r(torch.fft.rfftn(x, s=(3, 6), norm="forward")),
            torch.fft.irfft2(torch.fft.rfft2(x)), torch.fft.irfftn(torch.fft.rfftn(x), s=(6, 8)),
            torch.fft.hfft(z, n=9), torch.fft.hfft(x, norm="ortho"), r(torch.fft.ihfft(x, dim=1).resolve_conj()),
            r(torch.fft.ihfft(x, n=5, norm="forward").resolve_conj()), r(torch.fft.rfft(x.double(), n=7, norm="ortho")),
            r(torch.fft.fftshift(z)), r(torch.fft.ifftshift(z, dim=(0, 2))), torch.fft.fftshift(x, dim=1), torch.fft.ifftshift(x),
            torch.fft.fftfreq(7) + 0 * x[0, 0, :1], torch.fft.fftfreq(8, d=0.25) + 0 * x[0, 0, :1], torch.fft.rfftfreq(9, 2.0) + 0 * x[0, 0, :1])
torch.manual_seed(0)
xs = [torch.randn(3, 6, 8)]
`, 1e-4, 1e-5)
}

// TestTracedComplexValues reads view_as_complex, real, imag, abs, angle
// (zeros and negative real parts included), conj, sums of complex values
// and products with real ones,
// complex and polar.
func TestTracedComplexValues(t *testing.T) {
	traceCompareORT(t, `
class M(torch.nn.Module):
    def forward(self, x, y, ore, oim):
        z = torch.view_as_complex(torch.stack([x, y], -1))
        w = torch.fft.fft(z)
        v = (w * 2.5 + z - w / x.abs()) * y
        return (w.real, w.imag, w.abs(), w.angle(), z.angle(), torch.complex(ore, oim).angle(), torch.view_as_real(w.conj().resolve_conj()),
            torch.view_as_real(v.contiguous()), torch.view_as_real(torch.sub(v.clone(), z)), torch.angle(ore), torch.angle(ore / oim),
            torch.view_as_real(torch.complex(x, y)), torch.view_as_real(torch.polar(x.abs(), y)),
            torch.view_as_real(torch.fft.ifft(torch.complex(x, y), n=6)))
torch.manual_seed(1)
xs = [torch.randn(2, 5), torch.randn(2, 5), torch.tensor([0.0, -1.0, 0.0, -2.0, 3.0, 0.0]), torch.tensor([0.0, 0.0, -1.5, -0.5, 0.0, 2.0])]
`, 1e-4, 1e-5)
}

// TestTracedSTFTAndWindows reads torch.stft (centered with reflect padding
// or not, a window shorter than n_fft, normalized, two-sided, a 1-D
// signal, return_complex False, float64), torch.istft (centered, cut to
// a length, normalized) and the five window functions.
func TestTracedSTFTAndWindows(t *testing.T) {
	traceCompareORT(t, `
class M(torch.nn.Module):
    def forward(self, x):
        r = torch.view_as_real
        return (r(torch.stft(x, 8, hop_length=2, window=torch.hann_window(8), return_complex=True)),
            r(torch.stft(x, 8, hop_length=3, win_length=6, window=torch.hamming_window(6), center=False, normalized=True, return_complex=True)),
            r(torch.stft(x[0], 6, return_complex=True, onesided=False)),
            torch.stft(x, 10, hop_length=4, win_length=7, center=True, pad_mode="reflect", return_complex=False),
            torch.hann_window(7), torch.hann_window(7, periodic=False), torch.hamming_window(9, True, 0.5, 0.4),
            torch.blackman_window(6), torch.bartlett_window(8), torch.bartlett_window(7, periodic=False),
            torch.kaiser_window(9), torch.kaiser_window(6, periodic=False, beta=5.0), torch.hann_window(1) + 0 * x[0, :1],
            r(torch.stft(x.double(), 8, hop_length=4, window=torch.hann_window(8, dtype=torch.float64), return_complex=True)),
            torch.istft(torch.stft(x, 8, hop_length=2, window=torch.hann_window(8), return_complex=True), 8, hop_length=2, window=torch.hann_window(8)),
            torch.istft(torch.stft(x, 8, hop_length=2, window=torch.hann_window(8), return_complex=True), 8, hop_length=2, window=torch.hann_window(8), length=37),
            torch.istft(torch.stft(x[1], 10, hop_length=3, window=torch.hamming_window(10), normalized=True, center=False, return_complex=True),
                10, hop_length=3, window=torch.hamming_window(10), normalized=True, center=False),
            torch.istft(torch.stft(x, 8, hop_length=2, win_length=6, window=torch.hann_window(6), return_complex=True), 8, hop_length=2, win_length=6, window=torch.hann_window(6)))
torch.manual_seed(2)
xs = [torch.randn(2, 40)]
`, 1e-4, 1e-5)
}

// TestTracedTorchvisionOps reads torchvision's roi_align (aligned or not,
// fixed and adaptive sampling), roi_pool, ps_roi_align, nms and
// deform_conv2d (mask, groups, offset groups, stride, dilation).
func TestTracedTorchvisionOps(t *testing.T) {
	traceCompareORT(t, `
import torchvision.ops as tvops
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.w = torch.randn(6, 2, 3, 3)
        self.b = torch.randn(6)
    def forward(self, x, rois, off, mask, boxes, scores):
        return (tvops.roi_align(x, rois, (3, 2), spatial_scale=0.5, sampling_ratio=-1, aligned=True),
            tvops.roi_align(x, rois, 2, spatial_scale=0.25, sampling_ratio=0),
            tvops.roi_align(x, rois, (2, 3), spatial_scale=1.0, sampling_ratio=2, aligned=False),
            tvops.roi_pool(x, rois, (3, 3), spatial_scale=0.5),
            tvops.ps_roi_align(x, rois, 2, spatial_scale=0.5, sampling_ratio=-1),
            tvops.nms(boxes, scores, 0.4),
            tvops.deform_conv2d(x, off, self.w, self.b, stride=2, padding=1, dilation=1, mask=mask),
            tvops.deform_conv2d(x, off[:, :24], self.w[:, :, :2, :], None, stride=2, padding=(1, 2), dilation=(1, 2)))
torch.manual_seed(4)
def rois(k, size):
    xy = torch.rand(k, 2) * size
    wh = torch.rand(k, 2) * size / 2
    return torch.cat([torch.randint(0, 2, (k, 1)).float(), xy, xy + wh], 1)
b0 = torch.rand(15, 2) * 20
boxes = torch.cat([b0, b0 + torch.rand(15, 2) * 10 + 1], 1)
xs = [torch.randn(2, 4, 11, 9), rois(5, 16.0), torch.randn(2, 2 * 2 * 9, 6, 5), torch.rand(2, 2 * 9, 6, 5), boxes, torch.rand(15)]
`, 1e-4, 1e-5)
}

// TestComplexRefusals: an operator that would read the (real, imaginary)
// pairs as real numbers is refused by name.
func TestComplexRefusals(t *testing.T) {
	for _, c := range []struct{ forward, want string }{
		{"torch.view_as_real(torch.fft.fft(x) * torch.fft.fft(x))", "torch.mul: of two complex tensors is not read"},
		{"torch.fft.fft(x).sum()", "torch.sum: does not read complex tensors"},
	} {
		dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        r = `+c.forward+`
        return torch.view_as_real(r) if r.is_complex() else r
xs = [torch.randn(2, 8)]
`)
		g, _, err := readTraced(t, dir)
		if err == nil {
			g.Close()
			t.Errorf("%s: read, want a refusal", c.forward)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.forward, err, c.want)
		}
	}
}
