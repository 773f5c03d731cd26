package promote

import "github.com/kiln-go/kiln/tensor"

// Short names for the declarations below, as in JAX's dtypes.py.
const (
	b1  = Node(tensor.Bool)
	u1  = Node(tensor.U8)
	u2  = Node(tensor.U16)
	u4  = Node(tensor.U32)
	u8  = Node(tensor.U64)
	i1  = Node(tensor.I8)
	i2  = Node(tensor.I16)
	i4  = Node(tensor.I32)
	i8  = Node(tensor.I64)
	bf  = Node(tensor.BF16)
	f2  = Node(tensor.F16)
	f4  = Node(tensor.F32)
	f8  = Node(tensor.F64)
	c8  = Node(tensor.C64)
	c16 = Node(tensor.C128)
	iw  = IntWeak
	fw  = FloatWeak
	cw  = ComplexWeak
)

// jaxEdges is the type promotion lattice of seeds/004, edge for edge
// (`lattice = {...}` in JAX's type_promotion.rst), with the narrow dtypes
// of current JAX (_type_promotion_lattice in jax/_src/dtypes.py): each
// narrow integer is reached from i* only and each narrow float from f*
// only, and none has a successor — so a narrow dtype joins only with
// itself and with what lies below its weak kind (bool and i* for a narrow
// integer; bool, every integer, i* and f* for a narrow float).
func jaxEdges() Edges {
	e := Edges{
		b1: {iw}, u1: {u2, i2}, u2: {i4, u4}, u4: {u8, i8}, u8: {fw},
		iw: {u1, i1}, i1: {i2}, i2: {i4}, i4: {i8}, i8: {fw},
		fw: {cw, f2, bf}, bf: {f4}, f2: {f4}, f4: {c8, f8}, f8: {c16},
		cw: {c8}, c8: {c16}, c16: {},
	}
	for _, d := range tensor.NarrowDTypes() {
		if d.IsFloat() {
			e[fw] = append(e[fw], DTypeNode(d))
		} else {
			e[iw] = append(e[iw], DTypeNode(d))
		}
	}
	return e
}

// jaxX32Edges is the lattice JAX uses without x64: the same edges except
// u32 → i32, u64 (instead of u32 → i64, u64), so that 32-bit operands never
// produce a 64-bit result.
func jaxX32Edges() Edges {
	e := jaxEdges()
	e[u4] = []Node{u8, i4} // the standard u32 node: u4 names uint32 here, as in JAX
	return e
}

// strictEdges is JAX's numpy_dtype_promotion='strict' lattice: only the weak
// kinds have edges, so two different strong dtypes never promote.
func strictEdges() Edges {
	var ints, floats, complexes []Node
	for _, d := range tensor.AllDTypes() {
		switch {
		case d.IsInteger():
			ints = append(ints, DTypeNode(d))
		case d.IsFloat():
			floats = append(floats, DTypeNode(d))
		case d.IsComplex():
			complexes = append(complexes, DTypeNode(d))
		}
	}
	return Edges{
		iw: append([]Node{fw}, ints...),
		fw: append([]Node{cw}, floats...),
		cw: complexes,
	}
}

// The declared lattices, checked when the package starts: a declaration
// that is not a lattice is a programming error in this file.
var (
	jaxLattice    = mustLattice("jax", jaxEdges())
	jaxX32Lattice = mustLattice("jax x32", jaxX32Edges())
	strictLattice = mustLattice("strict", strictEdges())
)

func mustLattice(name string, e Edges) *Lattice {
	l, err := NewLattice(name, e)
	if err != nil {
		panic(err)
	}
	return l
}
