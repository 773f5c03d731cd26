package kiln

import "github.com/kiln-go/kiln/trace"

// Convolution and pooling, as jax.lax and flax (see trace's conv.go and
// pool.go).

// ConvOptions are lax.conv_general_dilated's optional arguments.
type ConvOptions = trace.ConvOptions

// ConvGeneralDilated is lax.conv_general_dilated (trace.ConvGeneralDilated),
// with lax's PreferredElementType option.
func ConvGeneralDilated(lhs, rhs Value, o ConvOptions, opts ...DotOption) Value {
	return trace.ConvGeneralDilated(lhs, rhs, o, opts...)
}

// Conv is lax.conv: NC…/OI… layouts, strides and "SAME" or "VALID" padding.
func Conv(lhs, rhs Value, strides []int, padding string) Value {
	return trace.Conv(lhs, rhs, strides, padding)
}
