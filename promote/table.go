package promote

import (
	"fmt"
	"strings"
)

// Table returns a rule set's binary promotion table in the layout of the
// seed tables: header is the column operands, each row starts with its row
// operand, "-" marks no implicit promotion. For anvil, weakRows selects the
// ambiguous (row) × known (column) table instead of known × known.
func Table(r *RuleSet, x32, weakRows bool) (header []string, rows [][]string) {
	return TableOver(r, r.Nodes(), x32, weakRows)
}

// TableOver is Table over the given nodes: r.AllRuleNodes() adds the
// narrow dtypes' rows and columns to the seed table.
func TableOver(r *RuleSet, nodes []Node, x32, weakRows bool) (header []string, rows [][]string) {
	for _, n := range nodes {
		header = append(header, n.String())
	}
	for _, a := range nodes {
		row := []string{a.String()}
		for _, b := range nodes {
			var n Node
			var ok bool
			if r.anvil != nil && weakRows {
				n, ok = r.anvil.promote(a, true, b, false)
			} else {
				n, ok = r.Promote(a, b, x32)
			}
			if !ok {
				n = noNode
			}
			row = append(row, n.String())
		}
		rows = append(rows, row)
	}
	return header, rows
}

// FormatTSV prints a table as tab-separated values, as in shared/tables.
func FormatTSV(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("\t" + strings.Join(header, "\t") + "\n")
	for _, row := range rows {
		b.WriteString(strings.Join(row, "\t") + "\n")
	}
	return b.String()
}

// FormatMarkdown prints a table as a Markdown table.
func FormatMarkdown(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("|   | " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(header)) + "\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| **%s** | %s |\n", row[0], strings.Join(row[1:], " | "))
	}
	return b.String()
}
