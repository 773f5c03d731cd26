package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"log"
	"strings"
)

// Most exported kernels of package simd have one shape: reslice the
// inputs to len(dst), let the assembly do whole vectors (n elements, 0 at
// the Generic tier), and finish the rest with the Go twin. The table says
// which kernels have that shape and what their twin is; wrappersFile
// writes them. Kernels of another shape are either given their whole body
// (wrapBody) or written by hand in package simd and only named here
// (byHand) so that the registration below can refer to them.
//
// Package kernels fills its kernel tables (binaryTable[op][dtype], …) with
// these functions at tierSIMD, above its generic Go loops; the slots each
// kernel fills are listed beside it (fills) and registerFile writes them.

// wrap gives k the one-shape exported wrapper name, documented as "name
// doc", whose twin runs on dst, a, … already resliced past the elements
// the assembly did.
func (k *kernel) wrap(name, doc, twin string) *kernel {
	k.export, k.doc, k.twin = name, doc, twin
	return k
}

// wrapBody gives k the exported wrapper name with its whole body.
func (k *kernel) wrapBody(name, doc, body string) *kernel {
	k.export, k.doc, k.body = name, doc, body
	return k
}

// handWritten names k's exported function, written by hand in package
// simd because it is not the one shape (it runs several kernels, or
// aligns its output first).
func (k *kernel) handWritten(name string) *kernel {
	k.export, k.byHand = name, true
	return k
}

// slot is one entry of a kernel table of package kernels: put(&table,
// tierSIMD, adapt(simd.Export)).
type slot struct{ table, adapt string }

// fills records that k's exported function fills the kernels table slot
// (a Go expression in package kernels) through the adapter adapt.
func (k *kernel) fills(adapt string, tables ...string) *kernel {
	for _, t := range tables {
		k.slots = append(k.slots, slot{t, adapt})
	}
	return k
}

// param is one parameter of a kernel's Go signature.
type param struct {
	name  string
	slice bool
}

func (k *kernel) goParams() []param {
	e, err := parser.ParseExpr("func(" + k.params + ")")
	if err != nil {
		log.Fatalf("kernel %s: parameters %q: %v", k.name, k.params, err)
	}
	var ps []param
	for _, f := range e.(*ast.FuncType).Params.List {
		_, isSlice := f.Type.(*ast.ArrayType)
		for _, n := range f.Names {
			ps = append(ps, param{n.Name, isSlice})
		}
	}
	return ps
}

// oneShape is the body of a one-shape wrapper: the first slice parameter
// sets the length, every other slice is cut to it, the assembly runs, and
// the twin finishes every slice past the n elements it did.
func (k *kernel) oneShape() string {
	var slices []string
	for _, p := range k.goParams() {
		if p.slice {
			slices = append(slices, p.name)
		}
	}
	if len(slices) == 0 || k.results != "int" {
		log.Fatalf("kernel %s: a one-shape wrapper needs a slice parameter and returns the count done", k.name)
	}
	var b strings.Builder
	if rest := slices[1:]; len(rest) > 0 {
		cut := make([]string, len(rest))
		for i, s := range rest {
			cut[i] = fmt.Sprintf("%s[:len(%s)]", s, slices[0])
		}
		fmt.Fprintf(&b, "%s = %s\n", strings.Join(rest, ", "), strings.Join(cut, ", "))
	}
	fmt.Fprintf(&b, "n := %sAccel(%s)\n", k.name, k.args)
	past := make([]string, len(slices))
	for i, s := range slices {
		past[i] = s + "[n:]"
	}
	fmt.Fprintf(&b, "%s = %s\n", strings.Join(slices, ", "), strings.Join(past, ", "))
	b.WriteString(k.twin)
	return b.String()
}

func wrappersFile() []byte {
	var body bytes.Buffer
	for _, k := range kernels {
		if k.export == "" || k.byHand {
			continue
		}
		code := k.body
		if code == "" {
			code = k.oneShape()
		}
		fmt.Fprintf(&body, "\n%sfunc %s(%s) {\n%s\n}\n", comment(k.export+" "+k.doc), k.export, k.params, code)
	}
	var b bytes.Buffer
	b.WriteString(header + "package simd\n")
	if bytes.Contains(body.Bytes(), []byte("numerics.")) {
		b.WriteString("\nimport \"github.com/kiln-go/kiln/internal/numerics\"\n")
	}
	b.Write(body.Bytes())
	return b.Bytes()
}

// comment formats text as a Go line comment filled to 76 columns.
func comment(text string) string {
	var b, line strings.Builder
	for _, w := range strings.Fields(text) {
		if line.Len() > 0 && line.Len()+1+len(w) > 73 {
			b.WriteString("// " + line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(w)
	}
	b.WriteString("// " + line.String() + "\n")
	return b.String()
}

func registerFile() []byte {
	var b bytes.Buffer
	b.WriteString(header + `package kernels

import (
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// registerSIMD puts package simd's kernels into the kernel tables at
// tierSIMD, where they take precedence over the generic Go loops whatever
// order the registrations run in. Each gives the generic loop's bits (the
// twin tests of package simd and the conformance suite hold them to it).
// The list is internal/simd/_asm's kernel table; simd.go registers the
// kernels that are not one table slot each.
func registerSIMD() {
`)
	for _, k := range kernels {
		for _, s := range k.slots {
			if k.export == "" {
				log.Fatalf("kernel %s fills %s but has no exported function", k.name, s.table)
			}
			fmt.Fprintf(&b, "\tput(&%s, tierSIMD, %s(simd.%s))\n", s.table, s.adapt, k.export)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}
