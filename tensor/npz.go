package tensor

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// maxDeflateRatio bounds how many bytes a deflated member can expand to
// per compressed byte (deflate's limit is 1032:1): a member claiming more
// is refused before its claim sizes anything.
const maxDeflateRatio = 1032

// ReadNPZ reads every array of a NumPy .npz archive (a zip of .npy
// members, stored or deflated, zip64 or not, as np.savez and
// np.savez_compressed write), in the archive's order, named as np.load
// names them: the member's name without its .npy suffix. Each member is
// read as ReadNPY reads, its header's claim checked against the member's
// size first, and its CRC-32 checked. A malformed archive or member is a
// *FileError.
func ReadNPZ(r io.ReaderAt, size int64) ([]NamedArray, error) {
	bad := func(name string, cause error, format string, args ...any) error {
		return &FileError{Op: "read", Format: "npz", Name: name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	entries, err := readZipDir(r, size)
	if err != nil {
		return nil, bad("", err, "not a readable zip archive")
	}
	out := make([]NamedArray, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.name, ".npy")
		if seen[name] {
			return nil, bad(e.name, nil, "two members are named %q", name)
		}
		seen[name] = true
		a, err := readNPZMember(r, size, e)
		if err != nil {
			return nil, err
		}
		out = append(out, NamedArray{Name: name, Array: a})
	}
	return out, nil
}

func readNPZMember(r io.ReaderAt, size int64, e zipEntry) (*Array, error) {
	rc, err := e.open(r, size)
	if err != nil {
		return nil, &FileError{Op: "read", Format: "npz", Name: e.name, Offset: -1, Msg: "cannot read the member", Err: err}
	}
	defer rc.Close()
	a, err := readNPY(rc, int64(e.usize), e.method == zipStore, "npz", e.name)
	if err != nil {
		return nil, err
	}
	// Read to the end so the member's size and CRC-32 are checked.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return nil, &FileError{Op: "read", Format: "npz", Name: e.name, Offset: -1, Msg: "the member's data is corrupt", Err: err}
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
// unique, not empty and UTF-8.
func WriteNPZ(w io.Writer, arrays []NamedArray, compress bool) error {
	bad := func(name string, cause error, format string, args ...any) error {
		return &FileError{Op: "write", Format: "npz", Name: name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	seen := map[string]bool{}
	for _, na := range arrays {
		if na.Name == "" || seen[na.Name] {
			return bad(na.Name, nil, "array names must be unique and not empty")
		}
		if !utf8.ValidString(na.Name) {
			return bad(na.Name, nil, "an array name must be UTF-8 (the archive marks non-ASCII names UTF-8, and np.load cannot decode it otherwise)")
		}
		seen[na.Name] = true
	}
	zw := &zipWriter{w: w}
	for _, na := range arrays {
		if len(na.Name)+4 > zipMax16 {
			return bad(na.Name, nil, "a member name may have at most %d bytes", zipMax16-4)
		}
		mw, err := zw.create(na.Name+".npy", compress)
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
	if err := zw.close(); err != nil {
		return bad("", err, "finishing the archive")
	}
	return nil
}

// WriteNPZFile writes arrays to a new .npz file at path (see WriteNPZ).
func WriteNPZFile(path string, arrays []NamedArray, compress bool) error {
	return writeFile(path, "npz", func(w io.Writer) error { return WriteNPZ(w, arrays, compress) })
}
