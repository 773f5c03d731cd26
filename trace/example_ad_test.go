package trace_test

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The gradient of Σ x·sin(x) is an ordinary program: the forward pass,
// then the backward pass (the cotangent 1 broadcast back over the sum).
func ExampleGrad() {
	f := func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Mul(a[0].Sin()).Sum()} }
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{3}}},
		func(a []trace.Value) []trace.Value { return trace.Grad(f, trace.GradOptions{})(a...) })
	fmt.Println(err)
	fmt.Println(p)
	// Output:
	// <nil>
	// { lambda ; a:f32[3]. let
	//     b:f32[3] = sin a
	//     c:f32[3] = cos a
	//     d:f32[3] = mul a b
	//     e:f32[] = reduce_sum[axes=(0)] d
	//     g:f32[1] = reshape[shape=(1)] 1:f32[]
	//     h:f32[3] = broadcast_in_dim[shape=(3) dims=(0)] g
	//     i:f32[3] = mul a h
	//     j:f32[3] = mul h b
	//     k:f32[3] = mul i c
	//     l:f32[3] = add j k
	//   in (l) }
}

// Every op says how it is differentiated: a JVP rule, Linear (with a
// transpose), Zero, or why it is not differentiable.
func ExampleRuleOf() {
	for _, op := range []trace.Op{trace.OpSin, trace.OpReshape, trace.OpFloor} {
		r := trace.RuleOf(op)
		fmt.Println(op, r.JVP != nil, r.Linear, r.Transpose != nil, r.Zero)
	}
	// Output:
	// sin true false false false
	// reshape false true true false
	// floor false false false true
}
