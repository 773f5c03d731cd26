package main

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// peerColors gives every peer a fixed color (Tableau 10), Kiln's in blues.
var peerColors = map[string]color.RGBA{
	kilnFused:    {31, 119, 180, 255},
	kilnRun:      {114, 170, 214, 255},
	kilnRelease:  {65, 145, 200, 255},
	kilnFirst:    {174, 199, 232, 255},
	kilnOpByOp:   {23, 190, 207, 255},
	gorgoniaPeer: {148, 103, 189, 255},
	gonumPeer:    {44, 160, 44, 255},
	goLoop:       {188, 189, 34, 255},
	cPeer:        {214, 39, 40, 255},
	cFastPeer:    {255, 127, 14, 255},
	numpyPeer:    {127, 127, 127, 255},
	torchPeer:    {140, 86, 75, 255},
}

const (
	chartWidth = 12 * vg.Inch
	panelH     = 4.5 * vg.Inch
)

// writeChart writes the chart as SVG.
func writeChart(w io.Writer, r *results) error {
	img := vgsvg.New(chartWidth, 3*panelH)
	if err := drawChart(img, r); err != nil {
		return err
	}
	_, err := img.WriteTo(w)
	return err
}

// drawChart draws three panels: the median time of every workload and
// peer on a log scale, GB/s of the memory-bound workloads against the copy
// bandwidth, and GFLOP/s of the matmuls.
func drawChart(img vg.Canvas, r *results) error {
	timeP, err := timePanel(r)
	if err != nil {
		return err
	}
	bwP, err := ratePanel(r, "GB/s (memory-bound workloads; dashed: copy bandwidth measured before each)", "GB/s",
		func(row *row) float64 { return row.bytes }, true)
	if err != nil {
		return err
	}
	flopP, err := ratePanel(r, "GFLOP/s (matmul f32)", "GFLOP/s", func(row *row) float64 { return row.flops }, false)
	if err != nil {
		return err
	}
	plots := [][]*plot.Plot{{timeP}, {bwP}, {flopP}}
	dc := draw.NewCanvas(img, chartWidth, 3*panelH)
	canvases := plot.Align(plots, draw.Tiles{Rows: 3, Cols: 1, PadY: vg.Centimeter}, dc)
	for i, row := range plots {
		row[0].Draw(canvases[i][0])
	}
	return nil
}

// groupedBars adds one bar series per peer over groups of rows; value
// returns a row's bar height for a peer (0: no bar). extra widens the x
// range to the right, to make room for the legend.
func groupedBars(p *plot.Plot, rows []*row, extra float64, legend bool, value func(*row, string) float64) error {
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row.id
	}
	areaW := chartWidth - 3*vg.Inch // less the axes and margins, conservatively
	groupW := areaW / vg.Length(float64(len(rows))+extra)
	barW := groupW * 0.85 / vg.Length(len(peerNames))
	for i, peer := range peerNames {
		vals := make(plotter.Values, len(rows))
		any := false
		for j, row := range rows {
			vals[j] = value(row, peer)
			any = any || vals[j] > 0
		}
		if !any {
			continue
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return err
		}
		bars.Color = peerColors[peer]
		bars.LineStyle.Width = 0
		bars.Offset = barW * vg.Length(float64(i)-float64(len(peerNames)-1)/2)
		p.Add(bars)
		if legend {
			p.Legend.Add(peer, bars)
		}
	}
	p.NominalX(names...)
	p.X.Max = float64(len(rows)) - 0.5 + extra
	return nil
}

// timePanel plots log10 of the median time in ns, so the bars start at
// 1 ns and the axis reads as a log scale.
func timePanel(r *results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Median time per run (E5a: per call), log scale — lower is better"
	p.Y.Label.Text = "time"
	p.Y.Min = 0
	maxV := 0.0
	err := groupedBars(p, r.rows, 1.6, true, func(row *row, peer string) float64 {
		c := row.cells[peer]
		if !c.measured() {
			return 0
		}
		v := max(math.Log10(c.sec*1e9), 0.05)
		maxV = max(maxV, v)
		return v
	})
	if err != nil {
		return nil, err
	}
	p.Y.Max = math.Ceil(maxV)
	p.Y.Tick.Marker = logTimeTicks{}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p, nil
}

// logTimeTicks labels a log10(ns) axis with times at every power of ten.
type logTimeTicks struct{}

func (logTimeTicks) Ticks(min, max float64) []plot.Tick {
	units := []string{"1 ns", "10 ns", "100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s", "100 s"}
	var ticks []plot.Tick
	for e := math.Floor(min); e <= max; e++ {
		label := ""
		if i := int(e); i >= 0 && i < len(units) {
			label = units[i]
		}
		ticks = append(ticks, plot.Tick{Value: e, Label: label})
	}
	return ticks
}

// ratePanel plots amount/time for the rows where amount is non-zero, with
// a dashed line over each group at its copy bandwidth when copies is set.
func ratePanel(r *results, title, unit string, amount func(*row) float64, copies bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title + " — higher is better; colors as above"
	p.Y.Label.Text = unit
	p.Y.Min = 0
	var rows []*row
	for _, row := range r.rows {
		if amount(row) > 0 {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		p.NominalX("(no rows)")
		return p, nil
	}
	extra := 0.0
	if copies {
		extra = 0.8 // room for the legend
	}
	err := groupedBars(p, rows, extra, false, func(row *row, peer string) float64 {
		if c := row.cells[peer]; c.measured() {
			return amount(row) / c.sec / 1e9
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	top := 0.0
	for _, row := range rows {
		for _, peer := range peerNames {
			if c := row.cells[peer]; c.measured() {
				top = max(top, amount(row)/c.sec/1e9)
			}
		}
		if copies {
			top = max(top, row.copyLimit())
		}
	}
	p.Y.Max = 1.08 * top
	for i, row := range rows {
		lim := row.copyLimit()
		if !copies || lim <= 0 {
			continue
		}
		line, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.45, Y: lim}, {X: float64(i) + 0.45, Y: lim}})
		if err != nil {
			return nil, err
		}
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		line.Color = color.Black
		p.Add(line)
		if i == 0 {
			p.Legend.Add("copy bandwidth", line)
			p.Legend.Top = true
		}
	}
	return p, nil
}
