package tensor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// numpyPython is Debian's interpreter (the PATH one may lack NumPy).
const numpyPython = "/usr/bin/python3"

// numpyOrSkip skips the test when NumPy is missing, or fails it when
// KILN_REQUIRE_NUMPY=1 (as CI sets).
func numpyOrSkip(t *testing.T) {
	t.Helper()
	err := exec.Command(numpyPython, "-c", "import numpy").Run()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("the NumPy file tests need %s with NumPy (apt-get install python3-numpy): %v", numpyPython, err)
	if os.Getenv("KILN_REQUIRE_NUMPY") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// numpyCodes are the NumPy type codes of Kiln's dtypes ('V2' holds bf16).
var numpyCodes = map[string]DType{
	"b1": Bool, "u1": U8, "u2": U16, "u4": U32, "u8": U64, "i1": I8, "i2": I16, "i4": I32, "i8": I64,
	"V2": BF16, "f2": F16, "f4": F32, "f8": F64, "c8": C64, "c16": C128,
}

// fileCase is one file of a manifest: the file, the raw little-endian
// C-order bytes its array must have, and its code and shape.
type fileCase struct {
	File   string `json:"file"`
	Member string `json:"member,omitempty"`
	Bin    string `json:"bin"`
	Code   string `json:"code"`
	Shape  []int  `json:"shape"`
	Descr  string `json:"descr,omitempty"`
	F      bool   `json:"fortran,omitempty"`
}

// numpyWrites writes, for every dtype, shape, byte order, memory order
// and format version, a .npy file with np.save (or write_array for 2.0
// and 3.0) of random bytes — NaNs with payloads, -0, subnormals — plus
// the explicit specials, and two .npz archives; the manifest gives each
// array's expected bytes.
const numpyWrites = `
import json, os, sys, zipfile
import numpy as np
from numpy.lib import format as fmt
out = sys.argv[1]
codes = ["b1","u1","u2","u4","u8","i1","i2","i4","i8","V2","f2","f4","f8","c8","c16"]
shapes = [(), (0,), (5,), (2,3), (2,0,3), (3,1,4), (2,3,2,2)]
specials = {"f2": [0x8000, 0x7e01, 0xfc01, 0x0001, 0x7c00],
            "f4": [0x80000000, 0x7fc00001, 0xff800001, 0x00000001, 0x7f800000],
            "f8": [0x8000000000000000, 0x7ff8000000000001, 0xfff0000000000001, 1, 0x7ff0000000000000]}
rng = np.random.default_rng(7)
manifest = []
npz = {}
def arr(code, shape):
    n = int(np.prod(shape))
    dt = np.dtype("|b1" if code == "b1" else ("|" + code if code in ("u1", "i1", "V2") else "<" + code))
    if code == "b1":
        raw = rng.integers(0, 2, n, dtype=np.uint8).tobytes()
    else:
        raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).tobytes()
    a = np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    if code in specials and n >= 5:
        u = a.reshape(-1).view("<u%d" % dt.itemsize)
        u[:5] = specials[code]
    return a
k = 0
for code in codes:
    for shape in shapes:
        a = arr(code, shape)
        for bo in "<>":
            if bo == ">" and a.dtype.itemsize == 1 or bo == ">" and code == "V2":
                continue
            for order in "CF":
                for version in (None, (2, 0), (3, 0)):
                    b = a.astype(a.dtype.newbyteorder(bo)) if bo == ">" else a
                    if order == "F" and b.ndim > 0:  # asfortranarray makes a 0-d array 1-D
                        b = np.asfortranarray(b)
                    name = "n%d.npy" % k
                    bin = "n%d.bin" % k
                    k += 1
                    with open(os.path.join(out, name), "wb") as f:
                        if version is None:
                            np.save(f, b)
                        else:
                            fmt.write_array(f, b, version=version)
                    with open(os.path.join(out, bin), "wb") as f:
                        f.write(a.tobytes())
                    manifest.append({"file": name, "bin": bin, "code": code, "shape": list(shape)})
        if shape == (2, 3):
            npz[code] = (a, bin)
for compressed, path in ((False, "s.npz"), (True, "c.npz")):
    (np.savez_compressed if compressed else np.savez)(os.path.join(out, path), **{("x_" + c): v[0] for c, v in npz.items()})
    for c, v in npz.items():
        manifest.append({"file": path, "member": "x_" + c, "bin": v[1], "code": c, "shape": [2, 3]})
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f)
with zipfile.ZipFile(os.path.join(out, "c.npz")) as z:
    assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
print(len(manifest))
`

// NumPy writes every dtype, shape, byte order, memory order and format
// version; Kiln reads each array bit for bit.
func TestNumPyWritesKilnReads(t *testing.T) {
	numpyOrSkip(t)
	dir := t.TempDir()
	out, err := exec.Command(numpyPython, "-c", numpyWrites, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	var cases []fileCase
	if b, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err != nil || json.Unmarshal(b, &cases) != nil {
		t.Fatalf("manifest: %v", err)
	}
	npz := map[string]map[string]*Array{}
	for _, c := range cases {
		var a *Array
		var err error
		if c.Member != "" {
			if npz[c.File] == nil {
				arrays, err := ReadNPZFile(filepath.Join(dir, c.File))
				if err != nil {
					t.Fatal(err)
				}
				npz[c.File] = map[string]*Array{}
				for _, na := range arrays {
					npz[c.File][na.Name] = na.Array
				}
			}
			a = npz[c.File][c.Member]
		} else {
			a, err = ReadNPYFile(filepath.Join(dir, c.File))
		}
		want, _ := os.ReadFile(filepath.Join(dir, c.Bin))
		name := c.File + ":" + c.Member
		switch {
		case err != nil:
			t.Errorf("%s: %v", name, err)
		case a == nil:
			t.Errorf("%s: no such member", name)
		case a.DType() != numpyCodes[c.Code] || !a.HasShape(c.Shape):
			t.Errorf("%s: read %s%v, NumPy wrote %s%v", name, a.DType(), a.Shape(), c.Code, c.Shape)
		case !bytes.Equal(rawBytes(a.Data()), want):
			t.Errorf("%s (%s%v): bytes differ from NumPy's", name, c.Code, c.Shape)
		}
	}
	t.Logf("%d arrays written by NumPy %s read bit for bit", len(cases), strings.TrimSpace(string(out)))
}

// numpyReads loads every file of the manifest with np.load and checks
// its descr, shape, memory order and bytes.
const numpyReads = `
import json, os, sys
import numpy as np
d = sys.argv[1]
bad = 0
cases = json.load(open(os.path.join(d, "manifest.json")))
loaded = {}
for c in cases:
    path = os.path.join(d, c["file"])
    if c.get("member"):
        if path not in loaded:
            loaded[path] = np.load(path)
        a = loaded[path][c["member"]]
    else:
        a = np.load(path)
    want = open(os.path.join(d, c["bin"]), "rb").read()
    got = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<") if a.dtype.itemsize > 1 else a.dtype).tobytes()
    what = "%s:%s" % (c["file"], c.get("member", ""))
    if a.dtype.str != c["descr"] or list(a.shape) != c["shape"]:
        print("%s: NumPy read %s%s, want %s%s" % (what, a.dtype.str, a.shape, c["descr"], c["shape"])); bad += 1
    elif got != want:
        print("%s: bytes differ" % what); bad += 1
    elif c.get("fortran") and a.ndim > 1 and a.size > 1 and not a.flags.f_contiguous:
        print("%s: not loaded in Fortran order" % what); bad += 1
print("checked", len(cases))
sys.exit(1 if bad else 0)
`

// Kiln writes every dtype, shape and layout option, and .npz archives
// stored and deflated; NumPy reads each array bit for bit.
func TestKilnWritesNumPyReads(t *testing.T) {
	numpyOrSkip(t)
	dir := t.TempDir()
	var cases []fileCase
	code := map[DType]string{}
	for c, d := range numpyCodes {
		code[d] = c
	}
	opts := []NPYOptions{{}, {BigEndian: true}, {Fortran: true}, {Version: 2}, {Version: 3, BigEndian: true, Fortran: true}}
	var members []NamedArray
	k := 0
	for _, d := range StandardDTypes() { // the narrow ones have no .npy descr (TestNarrowFiles)
		for si, shape := range fileShapes {
			a := bitsArray(d, shape, uint64(si))
			bin := fmt.Sprintf("k%d.bin", k)
			if err := os.WriteFile(filepath.Join(dir, bin), rawBytes(a.Data()), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, o := range opts {
				name := fmt.Sprintf("k%d.npy", k)
				k++
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				w := bufio.NewWriter(f)
				if err := WriteNPYWith(w, a, o); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				f.Close()
				cases = append(cases, fileCase{File: name, Bin: bin, Code: code[d], Shape: shape, Descr: numpyDescrOf(d, o.BigEndian), F: o.Fortran})
			}
			if si == 4 {
				members = append(members, NamedArray{Name: d.LongName(), Array: a})
				for _, z := range []string{"s.npz", "c.npz"} {
					cases = append(cases, fileCase{File: z, Member: d.LongName(), Bin: bin, Code: code[d], Shape: shape, Descr: numpyDescrOf(d, false)})
				}
			}
		}
	}
	if err := WriteNPZFile(filepath.Join(dir, "s.npz"), members, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPZFile(filepath.Join(dir, "c.npz"), members, true); err != nil {
		t.Fatal(err)
	}
	m, _ := json.Marshal(cases)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), m, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(numpyPython, "-c", numpyReads, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// numpyDescrOf is dtype.str of the array NumPy loads from a file Kiln
// wrote: one-byte types and the bf16 void have '|'.
func numpyDescrOf(d DType, big bool) string {
	descr := npyDescr[d]
	switch {
	case d == BF16:
		return "|V2"
	case big && descr[0] == '<':
		return ">" + descr[1:]
	}
	return descr
}

// safetensorsByPython writes a safetensors file as the format's
// specification reads, with Python's json and NumPy's bytes alone: keys
// in no particular order, json.dumps' spacing, no padding, a tensor of
// each dtype whose data is unaligned; then it parses a file Kiln wrote
// the same way and checks every tensor's bytes and the metadata.
const safetensorsByPython = `
import json, os, struct, sys
import numpy as np
d = sys.argv[1]
codes = {"BOOL": "|b1", "U8": "|u1", "I8": "|i1", "I16": "<i2", "U16": "<u2", "I32": "<i4", "U32": "<u4",
         "I64": "<i8", "U64": "<u8", "F16": "<f2", "BF16": "<u2", "F32": "<f4", "F64": "<f8",
         "F8_E4M3": "|u1", "F8_E5M2": "|u1", "F8_E8M0": "|u1"}
rng = np.random.default_rng(3)
header, blobs, at = {"__metadata__": {"by": "python"}}, [], 0
for i, (name, code) in enumerate(sorted(codes.items(), reverse=True)):
    shape = [(3,), (2, 2), (), (0, 4)][i % 4]
    n = int(np.prod(shape))
    raw = rng.integers(0, 2, n, dtype=np.uint8).tobytes() if name == "BOOL" else rng.integers(0, 256, n * np.dtype(code).itemsize, dtype=np.uint8).tobytes()
    header["t_" + name] = {"dtype": name, "shape": list(shape), "data_offsets": [at, at + len(raw)]}
    blobs.append(raw)
    at += len(raw)
    open(os.path.join(d, "t_" + name + ".bin"), "wb").write(raw)
h = json.dumps(header).encode()
with open(os.path.join(d, "py.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
if len(sys.argv) > 2:
    b = open(sys.argv[2], "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    hdr = json.loads(b[8:8 + n])
    assert hdr.pop("__metadata__") == {"by": "kiln"}, "metadata"
    data = b[8 + n:]
    ends = 0
    for name, t in hdr.items():
        lo, hi = t["data_offsets"]
        ends = max(ends, hi)
        a = np.frombuffer(data[lo:hi], dtype=codes[t["dtype"]]).reshape(t["shape"])
        want = open(os.path.join(d, name + ".bin"), "rb").read()
        assert a.tobytes() == want, name
        assert (8 + n + lo) % np.dtype(codes[t["dtype"]]).itemsize == 0, name + " unaligned"
    assert ends == len(data), "trailing data"
    print("checked", len(hdr))
`

// A safetensors file written per the specification by Python is read bit
// for bit (unaligned tensors copied); the file Kiln writes back is parsed
// per the specification by Python, aligned, with the same bytes.
func TestSafetensorsWithPython(t *testing.T) {
	numpyOrSkip(t)
	dir := t.TempDir()
	if out, err := exec.Command(numpyPython, "-c", safetensorsByPython, dir).CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "py.safetensors")
	tensors, meta, err := ReadSafetensorsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["by"] != "python" || len(tensors) != len(safetensorsDTypes) {
		t.Fatalf("read %d tensors, metadata %v", len(tensors), meta)
	}
	f, err := OpenSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkSameTensors(t, "mapped", f.Tensors(), tensors)
	t.Logf("%d of %d tensors of Python's file view the mapping, the others are unaligned copies", f.Mapped(), len(tensors))
	for _, na := range tensors {
		want, _ := os.ReadFile(filepath.Join(dir, na.Name+".bin"))
		if !bytes.Equal(rawBytes(na.Array.Data()), want) {
			t.Errorf("%s: bytes differ from Python's", na.Name)
		}
	}
	kiln := filepath.Join(dir, "kiln.safetensors")
	if err := WriteSafetensorsFile(kiln, tensors, map[string]string{"by": "kiln"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(numpyPython, "-c", safetensorsByPython, dir, kiln).CombinedOutput()
	if err != nil {
		t.Fatalf("python reading Kiln's file: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// An archive of more members than a plain zip end record counts (65535)
// is written with zip64 end records, which Kiln and np.load read.
func TestNPZZip64EndRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 70,000 members")
	}
	const n = 70000
	arrays := make([]NamedArray, n)
	for i := range arrays {
		arrays[i] = NamedArray{Name: fmt.Sprintf("a%d", i), Array: Scalar(int32(i))}
	}
	path := filepath.Join(t.TempDir(), "many.npz")
	if err := WriteNPZFile(path, arrays, false); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNPZFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != n || back[n-1].Name != "a69999" || back[n-1].Array.String() != "i32[] 69999" {
		t.Fatalf("read %d members, the last %v", len(back), back[len(back)-1])
	}
	numpyOrSkip(t)
	out, err := exec.Command(numpyPython, "-c", `import sys, numpy as np; z = np.load(sys.argv[1]); print(len(z.files), z["a69999"])`, path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "70000 69999" {
		t.Errorf("np.load: %s, %v", out, err)
	}
}
