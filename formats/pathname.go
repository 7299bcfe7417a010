package formats

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxComponentBytes bounds a file name made from a model's contents well
// below every file system's limit (255 bytes), leaving room for suffixes.
const maxComponentBytes = 128

// PathComponent returns name when it can serve as one file name inside a
// folder the user chose, and fallback otherwise. Names come from model
// contents (an ONNX graph name), so anything that could leave the folder
// or hide the file is refused: empty, "." and "..", separators, leading
// dots, control characters, invalid UTF-8 and over-long names.
func PathComponent(name, fallback string) string {
	if name == "" || len(name) > maxComponentBytes || strings.HasPrefix(name, ".") ||
		strings.ContainsAny(name, "/\\:\x00") || !utf8.ValidString(name) {
		return fallback
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return fallback
		}
	}
	return name
}
