package graphdraw

import "sort"

// Metrics of the built-in layout, in SVG pixels.
const (
	charWidth  = 6.6 // average advance of 11px sans-serif text
	lineHeight = 14.0
	boxPadX    = 8.0
	boxPadY    = 6.0
	gapX       = 24.0
	gapY       = 36.0
	margin     = 16.0
)

// placed is a box with its position (top-left corner) and size.
type placed struct {
	box        *Box
	lines      []line
	x, y, w, h float64
	layer      int
}

// line is one row of text in a box.
type line struct {
	text  string
	style lineStyle
}

type lineStyle uint8

const (
	styleTitle lineStyle = iota
	styleName
	styleAttr
	styleWeight
	styleOutput
	styleNote
)

func boxLines(b *Box) []line {
	ls := []line{{b.Title, styleTitle}}
	if b.Name != "" && b.Name != b.Title {
		ls = append(ls, line{b.Name, styleName})
	}
	for _, a := range b.Attrs {
		ls = append(ls, line{a, styleAttr})
	}
	for _, w := range b.Weights {
		ls = append(ls, line{w.String(), styleWeight})
	}
	for _, o := range b.Outputs {
		if b.Kind == OpBox {
			o = "→ " + o
		}
		ls = append(ls, line{o, styleOutput})
	}
	if b.Note != "" {
		ls = append(ls, line{b.Note, styleNote})
	}
	return ls
}

// layoutDrawing places boxes in layers (a Sugiyama-style layered drawing):
// each box one layer below the deepest box feeding it, boxes in a layer
// ordered by the mean position of their neighbours to reduce crossings, and
// layers centred. It returns the boxes by id and the canvas size.
func layoutDrawing(d *Drawing) (map[string]*placed, []*placed, float64, float64) {
	byID := map[string]*placed{}
	var order []*placed
	for _, b := range d.Boxes {
		p := &placed{box: b, lines: boxLines(b)}
		for _, l := range p.lines {
			if w := float64(len([]rune(l.text)))*charWidth + 2*boxPadX; w > p.w {
				p.w = w
			}
		}
		p.h = float64(len(p.lines))*lineHeight + 2*boxPadY
		byID[b.ID] = p
		order = append(order, p)
	}
	preds := map[*placed][]*placed{}
	succs := map[*placed][]*placed{}
	for _, e := range d.Edges {
		f, t := byID[e.From], byID[e.To]
		if f == nil || t == nil || f == t {
			continue
		}
		preds[t] = append(preds[t], f)
		succs[f] = append(succs[f], t)
	}
	// Longest-path layering; at most len(order) rounds, so a cycle (which a
	// diff of two reordered graphs could produce) cannot loop forever.
	for round := 0; round < len(order); round++ {
		changed := false
		for _, p := range order {
			for _, q := range preds[p] {
				if q.layer+1 > p.layer && q.layer+1 <= len(order) {
					p.layer = q.layer + 1
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	var layers [][]*placed
	for _, p := range order {
		for len(layers) <= p.layer {
			layers = append(layers, nil)
		}
		layers[p.layer] = append(layers[p.layer], p)
	}
	pos := map[*placed]float64{}
	setPos := func() {
		for _, l := range layers {
			for i, p := range l {
				pos[p] = float64(i)
			}
		}
	}
	setPos()
	bary := func(l []*placed, nb map[*placed][]*placed) {
		key := map[*placed]float64{}
		for _, p := range l {
			if len(nb[p]) == 0 {
				key[p] = pos[p]
				continue
			}
			s := 0.0
			for _, q := range nb[p] {
				s += pos[q]
			}
			key[p] = s / float64(len(nb[p]))
		}
		sort.SliceStable(l, func(i, j int) bool { return key[l[i]] < key[l[j]] })
		for i, p := range l {
			pos[p] = float64(i)
		}
	}
	for sweep := 0; sweep < 4; sweep++ {
		for i := 1; i < len(layers); i++ {
			bary(layers[i], preds)
		}
		for i := len(layers) - 2; i >= 0; i-- {
			bary(layers[i], succs)
		}
	}
	// Coordinates: rows centred on the widest one.
	width := 0.0
	for _, l := range layers {
		w := -gapX
		for _, p := range l {
			w += p.w + gapX
		}
		width = max(width, w)
	}
	y := margin
	for _, l := range layers {
		w, h := -gapX, 0.0
		for _, p := range l {
			w += p.w + gapX
			h = max(h, p.h)
		}
		x := margin + (width-w)/2
		for _, p := range l {
			p.x, p.y = x, y
			x += p.w + gapX
		}
		y += h + gapY
	}
	return byID, order, width + 2*margin, y - gapY + margin
}
