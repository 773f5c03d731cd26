package main

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// An --arg NAME=@FILE reads the argument from an array file:
//
//	@path.npy                 the file's array
//	@path.npz:NAME            the archive's member NAME (np.load's name)
//	@path.safetensors:NAME    the tensor NAME, from a read-only mapping
//
// :NAME may be left out when the file holds exactly one array. The
// format is the file's extension.

// fileArg reads the argument name from spec, "@…". The returned close
// releases a safetensors mapping once the argument is no longer used.
func fileArg(name, spec string) (argSpec, func(), error) {
	rest := strings.TrimSpace(strings.TrimPrefix(spec, "@"))
	path, member := rest, ""
	for _, ext := range []string{".npz", ".safetensors"} {
		if i := strings.LastIndex(rest, ext+":"); i >= 0 {
			path, member = rest[:i+len(ext)], rest[i+len(ext)+1:]
		}
	}
	noop := func() {}
	a := argSpec{name: name}
	switch {
	case strings.HasSuffix(path, ".npy"):
		arr, err := tensor.ReadNPYFile(path)
		if err != nil {
			return argSpec{}, noop, causeSpec(name, err)
		}
		a.array = arr
	case strings.HasSuffix(path, ".npz"):
		arrays, err := tensor.ReadNPZFile(path)
		if err != nil {
			return argSpec{}, noop, causeSpec(name, err)
		}
		if a.array, err = pick(name, path, member, arrays); err != nil {
			return argSpec{}, noop, err
		}
	case strings.HasSuffix(path, ".safetensors"):
		f, err := tensor.OpenSafetensors(path)
		if err != nil {
			return argSpec{}, noop, causeSpec(name, err)
		}
		if a.array, err = pick(name, path, member, f.Tensors()); err != nil {
			f.Close()
			return argSpec{}, noop, err
		}
		a.dtype, a.shape = a.array.DType(), a.array.Shape()
		return a, func() { f.Close() }, nil
	default:
		return argSpec{}, noop, usageSpec(name, "@%s: the file must end in .npy, .npz or .safetensors", rest)
	}
	a.dtype, a.shape = a.array.DType(), a.array.Shape()
	return a, noop, nil
}

// pick returns the array named member, or the only one when member is "".
func pick(name, path, member string, arrays []tensor.NamedArray) (*tensor.Array, error) {
	names := make([]string, len(arrays))
	for i, na := range arrays {
		if na.Name == member || member == "" && len(arrays) == 1 {
			return na.Array, nil
		}
		names[i] = na.Name
	}
	if member == "" {
		return nil, usageSpec(name, "@%s holds %d arrays: name one, @%s:NAME (it has %s)", path, len(arrays), path, strings.Join(names, ", "))
	}
	return nil, valueSpec(name, "@%s has no array named %q (it has %s)", path, member, strings.Join(names, ", "))
}

// writeOut writes the results to path, by its extension: .npy (one
// result), .npz (stored) or .safetensors. One result is named "result";
// several (the value and its --grad gradients) result0, result1, … in the
// order printed.
func writeOut(path string, results []*tensor.Array) error {
	named := make([]tensor.NamedArray, len(results))
	for i, a := range results {
		named[i] = tensor.NamedArray{Name: "result", Array: a}
		if len(results) > 1 {
			named[i].Name = fmt.Sprintf("result%d", i)
		}
	}
	switch {
	case strings.HasSuffix(path, ".npy"):
		if len(results) > 1 {
			return fmt.Errorf("eval: --out %s: a .npy file holds one array and there are %d results; write .npz or .safetensors", path, len(results))
		}
		return tensor.WriteNPYFile(path, results[0])
	case strings.HasSuffix(path, ".npz"):
		return tensor.WriteNPZFile(path, named, false)
	case strings.HasSuffix(path, ".safetensors"):
		return tensor.WriteSafetensorsFile(path, named, nil)
	}
	return fmt.Errorf("eval: --out %s: the file must end in .npy, .npz or .safetensors", path)
}
