package tensor

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxDeflateRatio bounds how many bytes a deflated member can expand to
// per compressed byte (deflate's limit is 1032:1): a member claiming more
// is refused before its claim sizes anything.
const maxDeflateRatio = 1032

// ReadNPZ reads every array of a NumPy .npz archive (a zip of .npy
// members, stored or deflated, as np.savez and np.savez_compressed
// write), in the archive's order, named as np.load names them: the
// member's name without its .npy suffix. Each member is read as ReadNPY
// reads, its header's claim checked against the member's size first. A
// malformed archive or member is a *FileError.
func ReadNPZ(r io.ReaderAt, size int64) ([]NamedArray, error) {
	bad := func(name string, cause error, format string, args ...any) error {
		return &FileError{Op: "read", Format: "npz", Name: name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, bad("", err, "not a readable zip archive")
	}
	out := make([]NamedArray, 0, min(len(zr.File), 1024))
	seen := map[string]bool{}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if seen[name] {
			return nil, bad(f.Name, nil, "two members are named %q", name)
		}
		seen[name] = true
		a, err := readNPZMember(f, size)
		if err != nil {
			return nil, err
		}
		out = append(out, NamedArray{Name: name, Array: a})
	}
	return out, nil
}

func readNPZMember(f *zip.File, size int64) (*Array, error) {
	bad := func(cause error, format string, args ...any) error {
		return &FileError{Op: "read", Format: "npz", Name: f.Name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, bad(err, "reading the member's header")
	}
	if f.CompressedSize64 > uint64(size) || off > size-int64(f.CompressedSize64) {
		return nil, bad(nil, "the member claims %d bytes at offset %d, past the end of the %d-byte archive", f.CompressedSize64, off, size)
	}
	switch f.Method {
	case zip.Store:
		if f.UncompressedSize64 != f.CompressedSize64 {
			return nil, bad(nil, "a stored member claims %d bytes uncompressed but %d stored", f.UncompressedSize64, f.CompressedSize64)
		}
	case zip.Deflate:
		if f.UncompressedSize64/maxDeflateRatio > f.CompressedSize64 {
			return nil, bad(nil, "a deflated member of %d bytes claims %d bytes uncompressed, more than deflate can expand to", f.CompressedSize64, f.UncompressedSize64)
		}
	default:
		return nil, bad(nil, "compression method %d is not stored (0) or deflated (8)", f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, bad(err, "opening the member")
	}
	defer rc.Close()
	a, err := readNPY(rc, int64(f.UncompressedSize64), f.Method == zip.Store, "npz", f.Name)
	if err != nil {
		return nil, err
	}
	// Read to the end so the zip reader checks the member's CRC-32 and size.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return nil, bad(err, "the member's data is corrupt")
	}
	return a, nil
}

// ReadNPZFile reads the .npz file at path (see ReadNPZ).
func ReadNPZFile(path string) ([]NamedArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Op: "read", Format: "npz", Name: path, Offset: -1, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &FileError{Op: "read", Format: "npz", Name: path, Offset: -1, Msg: "cannot stat", Err: err}
	}
	out, err := ReadNPZ(f, st.Size())
	if fe, ok := err.(*FileError); ok {
		if fe.Name == "" {
			fe.Name = path
		} else {
			fe.Name = path + ":" + fe.Name
		}
	}
	return out, err
}

// WriteNPZ writes arrays as a .npz archive whose members are name.npy
// files written by WriteNPY, deflated when compress is set (as
// np.savez_compressed) and stored otherwise (np.savez). Names must be
// unique and not empty.
func WriteNPZ(w io.Writer, arrays []NamedArray, compress bool) error {
	bad := func(name string, cause error, format string, args ...any) error {
		return &FileError{Op: "write", Format: "npz", Name: name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	seen := map[string]bool{}
	for _, na := range arrays {
		if na.Name == "" || seen[na.Name] {
			return bad(na.Name, nil, "array names must be unique and not empty")
		}
		seen[na.Name] = true
	}
	method := zip.Store
	if compress {
		method = zip.Deflate
	}
	zw := zip.NewWriter(w)
	for _, na := range arrays {
		mw, err := zw.CreateHeader(&zip.FileHeader{Name: na.Name + ".npy", Method: method})
		if err != nil {
			return bad(na.Name, err, "adding the member")
		}
		if err := WriteNPY(mw, na.Array); err != nil {
			if fe, ok := err.(*FileError); ok {
				fe.Format, fe.Name = "npz", na.Name
			}
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return bad("", err, "finishing the archive")
	}
	return nil
}

// WriteNPZFile writes arrays to a new .npz file at path (see WriteNPZ).
func WriteNPZFile(path string, arrays []NamedArray, compress bool) error {
	return writeFile(path, "npz", func(w io.Writer) error { return WriteNPZ(w, arrays, compress) })
}
