package formats

import "testing"

func TestPathComponent(t *testing.T) {
	for name, want := range map[string]string{
		"resnet": "resnet", "": "model", ".": "model", "..": "model", ".hidden": "model",
		"a/b": "model", `a\b`: "model", "c:x": "model", "a\x00b": "model", "a\nb": "model",
		"\xff\xfe": "model", "résumé": "résumé", string(make([]byte, 300)): "model",
	} {
		if got := PathComponent(name, "model"); got != want {
			t.Errorf("PathComponent(%q) = %q, want %q", name, got, want)
		}
	}
}
