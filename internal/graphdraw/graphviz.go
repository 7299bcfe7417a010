package graphdraw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelbridge/modelbridge/internal/interrupt"
)

// ErrNoGraphviz means Graphviz's dot program is not on PATH.
var ErrNoGraphviz = errors.New("Graphviz is not installed (no 'dot' on PATH): install graphviz (apt-get install graphviz, brew install graphviz) or write .dot or .html")

// dotTimeout bounds a Graphviz run; huge graphs can take long, but never
// forever.
const dotTimeout = 2 * time.Minute

// FindDot returns the path of Graphviz's dot, or ErrNoGraphviz.
func FindDot() (string, error) {
	p, err := exec.LookPath("dot")
	if err != nil {
		return "", ErrNoGraphviz
	}
	return p, nil
}

// DotToSVG runs Graphviz (dot -Tsvg) on a DOT description.
func DotToSVG(ctx context.Context, dotPath string, src []byte) ([]byte, error) {
	return DotRender(ctx, dotPath, src, "svg")
}

// DotRender runs Graphviz on a DOT description to draw it in one of its
// output formats (svg, png, pdf).
func DotRender(ctx context.Context, dotPath string, src []byte, format string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, dotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotPath, "-T"+format)
	cmd.Stdin = bytes.NewReader(src)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := interrupt.Run(cmd); err != nil {
		msg := strings.TrimSpace(errb.String())
		if ctx.Err() != nil {
			msg = fmt.Sprintf("gave up after %v", dotTimeout)
		}
		return nil, fmt.Errorf("graphviz (%s -T%s) failed: %v: %s", dotPath, format, err, msg)
	}
	return out.Bytes(), nil
}

// stripProlog removes the XML declaration and DOCTYPE that Graphviz puts
// before <svg>, so the SVG can be inlined in HTML.
func stripProlog(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
