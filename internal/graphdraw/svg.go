package graphdraw

import (
	"bufio"
	"fmt"
	"io"
)

// WriteSVG draws d with the built-in layered layout, for machines without
// Graphviz. The result is a standalone SVG document.
func WriteSVG(w io.Writer, d *Drawing) error {
	byID, boxes, width, height := layoutDrawing(d)
	// Edges that skip layers are routed down the right-hand side, past the
	// boxes of the layers in between, each in its own lane.
	rightOf := map[int]float64{}
	for _, p := range boxes {
		rightOf[p.layer] = max(rightOf[p.layer], p.x+p.w)
	}
	lane := 0
	for _, e := range d.Edges {
		if f, t := byID[e.From], byID[e.To]; f != nil && t != nil && t.layer-f.layer > 1 {
			lane++
		}
	}
	width += float64(lane) * 12
	lane = 0
	legendH := 0.0
	if d.Diff {
		legendH = 30
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="11">`+"\n",
		width, height+legendH, width, height+legendH)
	fmt.Fprintln(bw, `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>`)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for _, e := range d.Edges {
		f, t := byID[e.From], byID[e.To]
		if f == nil || t == nil {
			continue
		}
		x1, y1 := f.x+f.w/2, f.y+f.h
		x2, y2 := t.x+t.w/2, t.y
		if t.y <= f.y { // an edge going up (a cycle in a diff): route from the side
			x1, y1 = f.x+f.w, f.y+f.h/2
			x2, y2 = t.x+t.w, t.y+t.h/2
		}
		dy := max((y2-y1)/2, 20)
		path := fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, x1, y1+dy, x2, y2-dy, x2, y2)
		if t.layer-f.layer > 1 && t.y > f.y {
			side := 0.0
			for l := f.layer + 1; l < t.layer; l++ {
				side = max(side, rightOf[l])
			}
			lane++
			side += 8 + float64(lane)*12
			path = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f L%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f",
				x1, y1, x1, y1+gapY/2, side, y1+gapY/2, side, y1+gapY,
				side, y2-gapY, side, y2-gapY/2, x2, y2-gapY/2, x2, y2)
		}
		dash := ""
		if e.Status == Removed {
			dash = ` stroke-dasharray="5,3"`
		}
		fmt.Fprintf(bw, `<path d="%s" fill="none" stroke="%s" stroke-width="1.2"%s marker-end="url(#arrow)"><title>%s</title></path>`+"\n",
			path, statusColor[e.Status], dash, esc(e.Value))
	}
	for _, p := range boxes {
		writeSVGBox(bw, p)
	}
	if d.Diff {
		x := margin
		for _, st := range []Status{Removed, Added, Changed} {
			dash := ""
			if st == Removed {
				dash = ` stroke-dasharray="4,2"`
			}
			fmt.Fprintf(bw, `<rect x="%.0f" y="%.0f" width="70" height="18" rx="4" fill="%s" stroke="%s"%s/><text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n",
				x, height+4, statusFill[st], statusColor[st], dash, x+35, height+17, st)
			x += 80
		}
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

func writeSVGBox(w io.Writer, p *placed) {
	b := p.box
	rx := 0
	if b.Kind == OpBox {
		rx = 6
	}
	dash := ""
	if b.Status == Removed {
		dash = ` stroke-dasharray="5,3"`
	}
	fmt.Fprintf(w, `<g><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="%d" fill="%s" stroke="%s" stroke-width="1.2"%s/>`+"\n",
		esc(b.ID), p.x, p.y, p.w, p.h, rx, fillOf(b), statusColor[b.Status], dash)
	for i, l := range p.lines {
		y := p.y + boxPadY + float64(i)*lineHeight + 11
		attrs := ""
		x, anchor := p.x+boxPadX, "start"
		switch l.style {
		case styleTitle:
			attrs = ` font-weight="bold"`
			x, anchor = p.x+p.w/2, "middle"
		case styleName:
			attrs = ` fill="#666666" font-size="9"`
			x, anchor = p.x+p.w/2, "middle"
		case styleWeight:
			attrs = ` font-family="monospace" font-size="10"`
		case styleOutput:
			attrs = ` fill="#1f4e99" font-size="10"`
		case styleNote:
			attrs = fmt.Sprintf(` fill="%s" font-style="italic" font-size="10"`, statusColor[b.Status])
		}
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="%s"%s>%s</text>`+"\n", x, y, anchor, attrs, esc(l.text))
	}
	fmt.Fprintln(w, "</g>")
}
